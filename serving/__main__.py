"""Entry point: `python3 -m serving` checks the environment, then runs the front end and its workers."""
import asyncio

from .config import load_or_exit


def main():
    config = load_or_exit()
    from .frontend import Server  # after the check: a bad environment is reported even where aiohttp is missing

    asyncio.run(Server(config).run())


if __name__ == "__main__":
    main()
