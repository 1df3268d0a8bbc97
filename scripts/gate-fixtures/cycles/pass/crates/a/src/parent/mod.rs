#[cfg(test)]
mod early {
    #[test]
    fn holds() {}
}

mod child;

pub struct Item;

pub fn make() -> u32 {
    child::helper()
}
