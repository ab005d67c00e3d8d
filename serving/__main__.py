"""Entry point: `python3 -m serving` checks the environment, then runs the front end and its workers."""
import asyncio
import sys

from .config import ConfigError, load


def main():
    try:
        config = load()
    except ConfigError as error:
        print(f"model server configuration is invalid:\n{error}", file=sys.stderr)
        sys.exit(2)
    from .frontend import Server  # after the check: a bad environment is reported even where aiohttp is missing

    asyncio.run(Server(config).run())


if __name__ == "__main__":
    main()
