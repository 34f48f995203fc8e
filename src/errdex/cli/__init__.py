"""The `errdex` command line: a thin layer over the library; each command group lives in its own module."""

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="errdex")
def main() -> None:
    """errdex: index every error a codebase can raise, then explain any error text."""


# --- command registration (one import + add_command per command module) ---


if __name__ == "__main__":
    main()
