//! Compile-fail tests of `#[autodiff]` live in `tests/ui/`; this library is empty.
