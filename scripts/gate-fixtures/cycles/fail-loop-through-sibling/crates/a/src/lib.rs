//! Circle: parent -> parent/child -> sibling -> parent.

mod parent;
mod sibling;
