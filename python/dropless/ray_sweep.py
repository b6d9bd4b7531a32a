"""``dropless sweep GRID --ray [ADDRESS]`` runs this: the sweep on Ray.

    python -m dropless.ray_sweep GRID [--out DIR] [--address ADDRESS] [--force] [--html]

Exit codes as the command line's: 0 done, 1 a run or the output failed,
2 bad input.
"""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="dropless sweep --ray", description=__doc__.splitlines()[0])
    p.add_argument("grid")
    p.add_argument("--out")
    p.add_argument("--address", help="a Ray cluster (e.g. auto, ray://head:10001); default: start a local one")
    p.add_argument("--force", action="store_true")
    p.add_argument("--html", action="store_true")
    p.add_argument("--no-progress", action="store_true")
    a = p.parse_args(argv)
    try:
        import dropless
    except ImportError as e:
        print(f"error: --ray needs the dropless Python package (pip install ./python): {e}", file=sys.stderr)
        return 2
    try:
        s = dropless.sweep(
            a.grid,
            backend="ray",
            address=a.address,
            out=a.out,
            force=a.force,
            html=a.html,
            progress=not a.no_progress and sys.stderr.isatty(),
        )
    except dropless.InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except dropless.RunError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        try:
            import ray

            if ray.is_initialized():
                ray.shutdown()
        except ImportError:
            pass
    print(f"{s.runs} runs in {s.wall_s:.2f} s wall on Ray")
    print(f"wrote {s.out}/ (results.csv, results.parquet, grid.toml, scenario.toml; {s.rows} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
