//! Globs: a sibling glob import and a glob re-export.

mod text;
mod view;

pub use view::{render, *};
