"""The operation a special method stands for: nobody calls `obj.__setattr__(...)`.

A site inside `__post_init__`, `__setattr__` or `__getitem__` is reached by
constructing the object, assigning an attribute or indexing it. The code
fields write that operation (`setattr(obj, name, value)`, `obj[key]`) and the
prose names it ("Assigning an attribute of a `ServerArgs`"), where a plain
method gets `obj.method(...)` and "Calling ...".
"""

from __future__ import annotations

from typing import NamedTuple


class Operation(NamedTuple):
    code: str    # a statement running the method; `{cls}` is the class name, `obj` an instance
    words: str   # a sentence head saying what runs it, ending where "when ..." may follow


_CONSTRUCT = Operation("{cls}(...)", "Constructing a `{cls}`")
_BINARY = {"add": "+", "sub": "-", "mul": "*", "matmul": "@", "truediv": "/", "floordiv": "//", "mod": "%",
           "pow": "**", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>"}
_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
_CONVERT = {"str": "str", "repr": "repr", "bytes": "bytes", "bool": "bool", "int": "int", "float": "float",
            "complex": "complex", "hash": "hash", "len": "len", "abs": "abs", "iter": "iter", "next": "next",
            "reversed": "reversed", "index": "operator.index", "round": "round"}
_CONVERT_WORDS = {"str": "Converting a `{cls}` to text", "repr": "Taking the repr of a `{cls}`",
                  "bytes": "Converting a `{cls}` to bytes", "bool": "Testing the truth of a `{cls}`",
                  "int": "Converting a `{cls}` to an int", "float": "Converting a `{cls}` to a float",
                  "complex": "Converting a `{cls}` to a complex", "hash": "Hashing a `{cls}`",
                  "len": "Taking the length of a `{cls}`", "abs": "Taking the absolute value of a `{cls}`",
                  "iter": "Iterating over a `{cls}`", "next": "Taking the next item of a `{cls}`",
                  "reversed": "Iterating backwards over a `{cls}`", "index": "Using a `{cls}` as an index",
                  "round": "Rounding a `{cls}`"}

OPERATIONS: dict[str, Operation] = {
    "__init__": _CONSTRUCT,
    "__new__": _CONSTRUCT,
    "__post_init__": _CONSTRUCT,   # a dataclass runs it from the constructor
    "__setattr__": Operation("setattr(obj, name, value)", "Assigning an attribute of a `{cls}`"),
    "__delattr__": Operation("delattr(obj, name)", "Deleting an attribute of a `{cls}`"),
    "__getattr__": Operation("getattr(obj, name)", "Reading an attribute a `{cls}` does not have"),
    "__getattribute__": Operation("getattr(obj, name)", "Reading an attribute of a `{cls}`"),
    "__getitem__": Operation("obj[key]", "Indexing a `{cls}`"),
    "__setitem__": Operation("obj[key] = value", "Assigning an item of a `{cls}`"),
    "__delitem__": Operation("del obj[key]", "Deleting an item of a `{cls}`"),
    "__missing__": Operation("obj[key]", "Looking up a key a `{cls}` does not hold"),
    "__contains__": Operation("item in obj", "Testing membership in a `{cls}`"),
    "__call__": Operation("obj(...)", "Calling a `{cls}` object"),
    "__enter__": Operation("with obj: ...", "Entering `with` on a `{cls}`"),
    "__exit__": Operation("with obj: ...", "Leaving a `with` block over a `{cls}`"),
    "__aenter__": Operation("async with obj: ...", "Entering `async with` on a `{cls}`"),
    "__aexit__": Operation("async with obj: ...", "Leaving an `async with` block over a `{cls}`"),
    "__aiter__": Operation("async for item in obj: ...", "Iterating with `async for` over a `{cls}`"),
    "__anext__": Operation("async for item in obj: ...", "Iterating with `async for` over a `{cls}`"),
    "__await__": Operation("await obj", "Awaiting a `{cls}`"),
    "__format__": Operation("format(obj, spec)", "Formatting a `{cls}`"),
    "__reduce__": Operation("pickle.dumps(obj)", "Pickling a `{cls}`"),
    "__reduce_ex__": Operation("pickle.dumps(obj)", "Pickling a `{cls}`"),
    "__getstate__": Operation("pickle.dumps(obj)", "Pickling a `{cls}`"),
    "__setstate__": Operation("pickle.loads(data)", "Unpickling a `{cls}`"),
    "__copy__": Operation("copy.copy(obj)", "Copying a `{cls}`"),
    "__deepcopy__": Operation("copy.deepcopy(obj)", "Deep-copying a `{cls}`"),
    "__init_subclass__": Operation("class Sub({cls}): ...", "Defining a subclass of `{cls}`"),
    "__class_getitem__": Operation("{cls}[...]", "Subscripting the class `{cls}`"),
    "__set_name__": Operation("class Owner: attr = {cls}(...)", "Assigning a `{cls}` in a class body"),
    "__get__": Operation("owner.attr", "Reading the attribute a `{cls}` descriptor manages"),
    "__set__": Operation("owner.attr = value", "Assigning the attribute a `{cls}` descriptor manages"),
    "__delete__": Operation("del owner.attr", "Deleting the attribute a `{cls}` descriptor manages"),
    "__del__": Operation("del obj", "Dropping the last reference to a `{cls}`"),
    "__neg__": Operation("-obj", "Negating a `{cls}`"),
    "__pos__": Operation("+obj", "Applying unary `+` to a `{cls}`"),
    "__invert__": Operation("~obj", "Inverting a `{cls}`"),
    **{f"__{name}__": Operation(f"{fn}(obj)", _CONVERT_WORDS[name]) for name, fn in _CONVERT.items()},
    **{f"__{name}__": Operation(f"obj {op} other", f"Comparing a `{{cls}}` with `{op}`")
       for name, op in _COMPARE.items()},
    **{f"__{name}__": Operation(f"obj {op} other", f"Applying `{op}` to a `{{cls}}`") for name, op in _BINARY.items()},
    **{f"__r{name}__": Operation(f"other {op} obj", f"Applying `{op}` with a `{{cls}}` on the right")
       for name, op in _BINARY.items()},
    **{f"__i{name}__": Operation(f"obj {op}= other", f"Applying `{op}=` to a `{{cls}}`") for name, op in _BINARY.items()},
}


#: A module's own special functions (PEP 562): run by reading a name it does not define, or `dir()`.
MODULE_OPERATIONS: dict[str, Operation] = {
    "__getattr__": Operation("getattr({module}, name)", "Reading a name module `{module}` does not define"),
    "__dir__": Operation("dir({module})", "Listing module `{module}` with `dir()`"),
}


def module_operation(function: str, module: str) -> Operation | None:
    """The operation that runs a module-level `__getattr__` or `__dir__` of `module`, or None."""
    found = MODULE_OPERATIONS.get(function)
    if found is None or not module:
        return None
    return Operation(found.code.format(module=module), found.words.format(module=module))


def operation(method: str, cls: str) -> Operation | None:
    """The operation that runs special method `method` of class `cls` (its last name), or None
    for an ordinary method."""
    found = OPERATIONS.get(method)
    if found is None:
        return None
    return Operation(found.code.format(cls=cls), found.words.format(cls=cls))
