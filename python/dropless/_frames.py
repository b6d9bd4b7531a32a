"""Tables from the extension (name, dtype, data) as pandas or polars DataFrames."""

from __future__ import annotations

import numpy as np


def columns(table):
    """The columns of a table as a dict of numpy arrays (strings as lists)."""
    out = {}
    for name, dtype, data in table:
        if dtype == "str":
            out[name] = list(data)
        else:
            # Little-endian bytes from the extension; a copy, so the frame owns it.
            out[name] = np.frombuffer(data, dtype="<" + dtype).copy()
    return out


def frame(table, kind: str = "pandas"):
    """A DataFrame of ``kind`` ("pandas" or "polars")."""
    cols = columns(table)
    if kind == "polars":
        try:
            import polars as pl
        except ImportError:
            from ._dropless import InputError

            raise InputError("dataframe='polars': polars is not installed (pip install polars)") from None
        return pl.DataFrame(cols)
    import pandas as pd

    return pd.DataFrame(cols, columns=[name for name, _, _ in table])
