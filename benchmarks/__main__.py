"""``python -m benchmarks`` (from the repository root): run every suite and print one table."""

from __future__ import annotations

import argparse
import importlib
import sys

from . import OPT_IN, SUITES, format_table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--full", action="store_true", help="include the large sizes")
    default = [s for s in SUITES if s not in OPT_IN]
    parser.add_argument(
        "--only",
        default=",".join(default),
        help=f"comma-separated suites (default: {','.join(default)}; {', '.join(OPT_IN)} "
        "only when named)",
    )
    parser.add_argument(
        "--device", default="cpu", help="cpu (default) or cuda, for the engine suite"
    )
    args = parser.parse_args(argv)
    wanted = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(wanted) - set(SUITES))
    if unknown:
        parser.error(f"--only: unknown suite(s) {unknown}; choose from {list(SUITES)}")
    rows = []
    for name in wanted:
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows.extend(module.run(full=args.full, device=args.device))
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
