//! Plane allocation policies for writes.

use crate::ftl::policy::{AllocContext, PlaneAllocator};
use crate::nand::Geometry;
use strength_reduce::StrengthReducedU32;

/// Channel-way-die-plane striping of logical pages (MQSim's CWDP): the plane is a function
/// of the logical page, so consecutive pages spread over channels first.
pub struct StaticCwdp {
    /// The plane of each residue of a logical page modulo the number of planes: striping
    /// channel, way, die and plane in turn repeats with that period, so one division and a
    /// look-up replace the four of [`Geometry::cwdp_plane`] (on the path of every write and
    /// of every first read of a page).
    planes: Box<[u32]>,
    period: StrengthReducedU32,
}

impl StaticCwdp {
    pub fn new(geo: &Geometry) -> StaticCwdp {
        let planes: Box<[u32]> = (0..geo.planes.max(1) as u64).map(|r| geo.cwdp_plane(r)).collect();
        let period = StrengthReducedU32::new(planes.len() as u32);
        StaticCwdp { planes, period }
    }

    /// The plane of logical page `lpn`.
    #[inline]
    pub fn plane(&self, lpn: u32) -> u32 {
        self.planes[(lpn % self.period) as usize]
    }
}

impl PlaneAllocator for StaticCwdp {
    #[inline]
    fn plane_for(&mut self, lpn: u32, _ctx: &AllocContext) -> u32 {
        self.plane(lpn)
    }
    fn is_static(&self) -> bool {
        true
    }
}

/// Each page goes to the die with the fewest queued transactions (ties: the next die in
/// round-robin order), and within it to the plane with the most room, less the writes
/// queued there that have not taken theirs yet.
pub struct DynamicLeastBusy {
    pub geo: Geometry,
    next: u32,
}

impl DynamicLeastBusy {
    pub fn new(geo: &Geometry) -> Self {
        DynamicLeastBusy { geo: geo.clone(), next: 0 }
    }
}

impl PlaneAllocator for DynamicLeastBusy {
    fn plane_for(&mut self, _lpn: u32, ctx: &AllocContext) -> u32 {
        let dies = self.geo.dies;
        let ppd = self.geo.planes_per_die;
        let mut best: Option<(u32, u32)> = None;
        for i in 0..dies {
            let die = (self.next + i) % dies;
            let has_room = (0..ppd).any(|p| ctx.blocks.can_allocate(die * ppd + p, ctx.stream, false));
            if !has_room {
                continue;
            }
            let load = ctx.die_load[die as usize];
            if best.is_none_or(|(l, _)| load < l) {
                best = Some((load, die));
            }
        }
        let die = best.map(|(_, d)| d).unwrap_or(self.next % dies);
        self.next = (die + 1) % dies;
        (0..ppd)
            .map(|p| die * ppd + p)
            .max_by_key(|&plane| {
                // The writes waiting fill the open block first, then the free blocks.
                let waiting = ctx.unbound.get(plane as usize).copied().unwrap_or(0) as u64;
                let room = ctx.blocks.room_for(plane, ctx.stream, false) as u64;
                let free = ctx.blocks.free_count(plane) as u64 * self.geo.pages_per_block as u64;
                let left = if waiting <= room { (room - waiting, free) } else { (0, free.saturating_sub(waiting - room)) };
                (left, u32::MAX - plane)
            })
            .unwrap_or(die * ppd)
    }
    fn is_static(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::config::{CellType, GeometryConfig};

    #[test]
    fn the_striping_table_places_every_page_as_the_address_arithmetic_does() {
        // Powers of two, odd counts, and a single plane: the table's period is the number
        // of planes whatever the counts are.
        for (channels, chips, dies, planes) in [(8, 4, 2, 2), (3, 5, 1, 3), (1, 1, 1, 1), (6, 1, 7, 2)] {
            let geo = Geometry::new(&GeometryConfig {
                channels,
                chips_per_channel: chips,
                dies_per_chip: dies,
                planes_per_die: planes,
                blocks_per_plane: 4,
                pages_per_block: 8,
                page_size: 4096,
                layers: 1,
                cell: CellType::Mlc,
            });
            let cwdp = StaticCwdp::new(&geo);
            let lpns = (0..5000u32).chain((u32::MAX - 5000)..=u32::MAX).chain((0..64).map(|i| i * 0x0400_0001));
            for lpn in lpns {
                assert_eq!(cwdp.plane(lpn), geo.cwdp_plane(lpn as u64), "lpn {lpn} on {channels}x{chips}x{dies}x{planes}");
            }
        }
    }
}
