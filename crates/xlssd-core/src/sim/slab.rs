//! Records by id, each id reused once its record is removed: transactions in flight,
//! requests in flight, and the cache tier's own tables. Ids stay small and dense, so events
//! carry them and tables index by them.

/// Records by id, reusing freed ids (most recently freed first).
#[derive(Debug, Clone)]
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
}

impl<T: Copy> Slab<T> {
    /// Stores `t` under a free id, or a new one.
    #[inline]
    pub fn insert(&mut self, t: T) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.items[id as usize] = t;
                id
            }
            None => {
                self.items.push(t);
                (self.items.len() - 1) as u32
            }
        }
    }

    #[inline]
    pub fn get(&self, id: u32) -> &T {
        &self.items[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut T {
        &mut self.items[id as usize]
    }

    /// The record of `id`, whose id is free again.
    #[inline]
    pub fn remove(&mut self, id: u32) -> T {
        self.free.push(id);
        self.items[id as usize]
    }

    /// Records stored and not removed.
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }
}

impl<T> std::ops::Index<usize> for Slab<T> {
    type Output = T;
    #[inline]
    fn index(&self, id: usize) -> &T {
        &self.items[id]
    }
}

impl<T> std::ops::IndexMut<usize> for Slab<T> {
    #[inline]
    fn index_mut(&mut self, id: usize) -> &mut T {
        &mut self.items[id]
    }
}

#[cfg(test)]
mod tests {
    use super::Slab;

    #[test]
    fn a_removed_id_is_given_out_again_before_a_new_one() {
        let mut s = Slab::default();
        assert_eq!((s.insert(10u8), s.insert(11), s.insert(12)), (0, 1, 2));
        assert_eq!(s.remove(1), 11);
        assert_eq!(s.live(), 2);
        assert_eq!(s.insert(13), 1);
        assert_eq!((s[1], *s.get(2)), (13, 12));
        *s.get_mut(0) += 1;
        assert_eq!(s[0], 11);
        assert_eq!(s.insert(14), 3);
    }
}
