//! The in-process interface of the Python package (`python/`).
