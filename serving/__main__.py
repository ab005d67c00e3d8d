"""Entry point: `python3 -m serving` checks the environment, then runs the front end and its workers."""
import asyncio
import sys

from .config import ConfigError, load
from .frontend import Server


def main():
    try:
        config = load()
    except ConfigError as error:
        print(f"model server configuration is invalid:\n{error}", file=sys.stderr)
        sys.exit(2)
    asyncio.run(Server(config).run())


if __name__ == "__main__":
    main()
