//! Allocating the structures that grow with the device so that a refusal is an error.
//! `vec![0; n]` aborts the process when the system refuses the memory, which from Python is
//! a crash with one line on standard error and no exit status of ours; these return an
//! error naming the structure and its size instead.

use crate::error::{Error, Result};

/// Types for which all-zero bytes are a valid value.
///
/// # Safety
/// Implement only for types whose every field is an integer or a float.
pub unsafe trait Zeroable: Copy {}

// SAFETY: plain integers and floats: all-zero bytes are 0 and 0.0.
unsafe impl Zeroable for u8 {}
unsafe impl Zeroable for u16 {}
unsafe impl Zeroable for u32 {}
unsafe impl Zeroable for u64 {}
unsafe impl Zeroable for f32 {}

/// `n` zeros, allocated zeroed: the operating system commits the memory only where it is
/// written, so a large device whose run touches little of a table costs little.
pub fn zeroed<T: Zeroable>(n: usize, what: &str) -> Result<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| refused(n, std::mem::size_of::<T>(), what))?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: the layout has a non-zero size. The pointer, when not null, comes from the
    // global allocator with the layout of a `Vec<T>` of capacity `n`, and its `n` elements
    // are initialised: all-zero bytes are a valid `T` (`Zeroable`).
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout) as *mut T;
        if ptr.is_null() {
            return Err(refused(n, std::mem::size_of::<T>(), what));
        }
        Ok(Vec::from_raw_parts(ptr, n, n))
    }
}

/// Asks the kernel to back `table` with huge (2 MiB) pages where it can: for a table read
/// at random on every request and dense where it is used. With 4 KiB pages nearly every such
/// read also misses the TLB, and under virtualisation a TLB miss walks two page tables; a
/// software prefetch of the entry waits for that walk. Only a hint: where transparent huge
/// pages are off, nothing changes. Not for sparse tables: a huge page commits all its
/// 2 MiB at the first touch.
pub fn advise_huge_pages<T>(table: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let bytes = std::mem::size_of_val(table);
        let start = (table.as_mut_ptr() as usize).next_multiple_of(PAGE);
        let end = (table.as_mut_ptr() as usize + bytes) & !(PAGE - 1);
        if end > start {
            // SAFETY: the range lies inside the table, which this process owns; the advice
            // changes how the memory is backed, never its contents.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = table;
}

/// `n` copies of `value`, written now (for arrays per block, a small part of the whole).
pub fn filled<T: Clone>(n: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| refused(n, std::mem::size_of::<T>(), what))?;
    v.resize(n, value);
    Ok(v)
}

fn refused(n: usize, size: usize, what: &str) -> Error {
    let gib = n as f64 * size as f64 / (1u64 << 30) as f64;
    Error::Config {
        key: "geometry".into(),
        message: format!(
            "the system refused the {gib:.2} GiB of the {what} ({n} entries of {size} bytes); expected a smaller \
             device, or a machine with more memory"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_and_filled_vectors_hold_what_they_say() {
        let z: Vec<u32> = zeroed(1000, "test map").unwrap();
        assert_eq!((z.len(), z.capacity()), (1000, 1000));
        assert!(z.iter().all(|&x| x == 0));
        assert!(zeroed::<u64>(0, "empty").unwrap().is_empty());
        assert_eq!(filled(3, 7u8, "test").unwrap(), vec![7, 7, 7]);
    }

    #[test]
    fn a_refused_allocation_is_an_error_naming_the_structure() {
        for e in [zeroed::<u64>(usize::MAX / 4, "page physics").unwrap_err(), filled(usize::MAX / 4, 0u64, "x").unwrap_err()] {
            assert!(matches!(e, Error::Config { ref key, .. } if key == "geometry"), "{e}");
        }
        let e = zeroed::<u32>(1 << 61, "logical-to-physical map").unwrap_err();
        assert!(e.to_string().contains("logical-to-physical map") && e.to_string().contains("GiB"), "{e}");
    }
}
