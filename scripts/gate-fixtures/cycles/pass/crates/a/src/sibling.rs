pub struct Leaf;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parent::make;

    #[test]
    fn test_code_may_glob_and_loop() {
        assert_eq!(make(), 1);
    }
}
