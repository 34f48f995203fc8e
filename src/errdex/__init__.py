"""errdex: a static error index of a Python codebase, and explanations of the errors it raises."""

__version__ = "0.1.0"
