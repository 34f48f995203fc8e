"""The `errdex` command line."""

import click


@click.group()
def main() -> None:
    """errdex: index every error a codebase can raise, then explain any error text."""


if __name__ == "__main__":
    main()
