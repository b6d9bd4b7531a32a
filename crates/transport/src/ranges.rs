//! A small sorted set of disjoint half-open `u64` ranges.
//!
//! Used by the receiver (out-of-order data) and the sender (what SACK blocks
//! have already reported). The number of ranges is the number of holes in the
//! sequence space, which stays small, so a sorted `Vec` beats a tree here and
//! reuses its allocation.

/// Sorted, disjoint, non-adjacent half-open ranges `[start, end)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    r: Vec<(u64, u64)>,
}

impl RangeSet {
    /// An empty set.
    pub fn new() -> Self {
        RangeSet { r: Vec::new() }
    }

    /// The ranges, ascending.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.r
    }

    /// Number of disjoint ranges.
    pub fn len(&self) -> usize {
        self.r.len()
    }

    /// True if no range is held.
    pub fn is_empty(&self) -> bool {
        self.r.is_empty()
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.r.clear();
    }

    /// True if `x` lies in a range.
    pub fn contains(&self, x: u64) -> bool {
        match self.r.binary_search_by(|&(s, _)| s.cmp(&x)) {
            Ok(_) => true,
            Err(0) => false,
            Err(i) => self.r[i - 1].1 > x,
        }
    }

    /// Inserts `[s, e)`, calling `new_part(a, b)` for every sub-range `[a, b)`
    /// that was not already in the set (in ascending order).
    pub fn insert_with(&mut self, s: u64, e: u64, mut new_part: impl FnMut(u64, u64)) {
        if s >= e {
            return;
        }
        // First range whose end >= s (could merge or lie after).
        let i = self.r.partition_point(|&(_, re)| re < s);
        let mut j = i;
        let mut cur = s;
        let mut ns = s;
        let mut ne = e;
        while j < self.r.len() && self.r[j].0 <= e {
            let (rs, re) = self.r[j];
            if rs > cur {
                new_part(cur, rs.min(e));
            }
            cur = cur.max(re);
            ns = ns.min(rs);
            ne = ne.max(re);
            j += 1;
        }
        if cur < e {
            new_part(cur, e);
        }
        if i == j {
            self.r.insert(i, (ns, ne));
        } else {
            self.r[i] = (ns, ne);
            self.r.drain(i + 1..j);
        }
    }

    /// Inserts `[s, e)`.
    pub fn insert(&mut self, s: u64, e: u64) {
        self.insert_with(s, e, |_, _| {});
    }

    /// Removes everything below `x`.
    pub fn remove_below(&mut self, x: u64) {
        let k = self.r.partition_point(|&(_, e)| e <= x);
        self.r.drain(..k);
        if let Some(first) = self.r.first_mut() {
            if first.0 < x {
                first.0 = x;
            }
        }
    }

    /// Removes and returns the first range if it starts at `x`.
    pub fn pop_if_starts_at(&mut self, x: u64) -> Option<(u64, u64)> {
        if self.r.first().is_some_and(|&(s, _)| s == x) {
            Some(self.r.remove(0))
        } else {
            None
        }
    }

    /// The range containing `x`, if any.
    pub fn range_of(&self, x: u64) -> Option<(u64, u64)> {
        match self.r.binary_search_by(|&(s, _)| s.cmp(&x)) {
            Ok(i) => Some(self.r[i]),
            Err(0) => None,
            Err(i) if self.r[i - 1].1 > x => Some(self.r[i - 1]),
            Err(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_merges_and_reports_new_parts() {
        let mut s = RangeSet::new();
        let mut parts = vec![];
        s.insert_with(10, 20, |a, b| parts.push((a, b)));
        s.insert_with(30, 40, |a, b| parts.push((a, b)));
        assert_eq!(parts, vec![(10, 20), (30, 40)]);
        parts.clear();
        s.insert_with(15, 35, |a, b| parts.push((a, b)));
        assert_eq!(parts, vec![(20, 30)]);
        assert_eq!(s.ranges(), &[(10, 40)]);
        parts.clear();
        s.insert_with(5, 45, |a, b| parts.push((a, b)));
        assert_eq!(parts, vec![(5, 10), (40, 45)]);
        assert_eq!(s.ranges(), &[(5, 45)]);
        // adjacent ranges merge
        s.insert(45, 50);
        assert_eq!(s.ranges(), &[(5, 50)]);
        s.insert(60, 61);
        s.insert(52, 53);
        assert_eq!(s.ranges(), &[(5, 50), (52, 53), (60, 61)]);
        assert!(s.contains(52) && !s.contains(53) && !s.contains(51) && s.contains(5));
        assert_eq!(s.range_of(49), Some((5, 50)));
        s.remove_below(52);
        assert_eq!(s.ranges(), &[(52, 53), (60, 61)]);
        s.remove_below(60);
        assert_eq!(s.pop_if_starts_at(60), Some((60, 61)));
        assert!(s.is_empty());
    }

    #[test]
    fn insert_inside_existing_reports_nothing() {
        let mut s = RangeSet::new();
        s.insert(0, 100);
        let mut n = 0;
        s.insert_with(10, 20, |_, _| n += 1);
        assert_eq!(n, 0);
        assert_eq!(s.len(), 1);
    }
}
