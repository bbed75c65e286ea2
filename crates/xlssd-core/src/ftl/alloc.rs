//! Plane allocation policies for writes.

use crate::ftl::policy::{AllocContext, PlaneAllocator};
use crate::nand::Geometry;

/// Channel-way-die-plane striping of logical pages (MQSim's CWDP): the plane is a function
/// of the logical page, so consecutive pages spread over channels first.
pub struct StaticCwdp {
    pub geo: Geometry,
}

impl PlaneAllocator for StaticCwdp {
    fn plane_for(&mut self, lpn: u32, _ctx: &AllocContext) -> u32 {
        self.geo.cwdp_plane(lpn as u64)
    }
    fn is_static(&self) -> bool {
        true
    }
}

/// Each page goes to the die with the fewest queued transactions (ties: the next die in
/// round-robin order), and within it to the plane with the most room.
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
            .max_by_key(|&plane| (ctx.blocks.room_in_active(plane, ctx.stream), ctx.blocks.free_count(plane), u32::MAX - plane))
            .unwrap_or(die * ppd)
    }
    fn is_static(&self) -> bool {
        false
    }
}
