use strength_reduce::{StrengthReducedU32, StrengthReducedU64};

use super::config::{CellType, GeometryConfig};

/// A physical page number. 64 bits: a drive of tens of terabytes has more than 2^32 pages.
pub type Ppn = u64;

/// Derived sizes and address arithmetic of the flash array.
///
/// Planes are numbered channel-major: plane = ((channel * chips + chip) * dies + die) *
/// planes + plane_in_die; a die's planes are consecutive. A block number is
/// plane * blocks_per_plane + block_in_plane and a physical page number (PPN) is
/// block * pages_per_block + page_in_block: a block number fits a `u32`, a page number
/// needs a [`Ppn`].
#[derive(Debug, Clone)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size: u32,
    pub layers: u32,
    pub pages_per_layer: u32,
    pub cell: CellType,
    pub dies: u32,
    pub planes: u32,
    pub blocks: u32,
    pub pages: Ppn,
    pub dies_per_channel: u32,
    /// The divisors of the address arithmetic, reduced once: every event takes addresses
    /// apart, and a hardware division costs tens of cycles.
    div: Divisors,
}

#[derive(Debug, Clone, Copy)]
struct Divisors {
    pages_per_block: StrengthReducedU64,
    blocks_per_plane: StrengthReducedU32,
    planes_per_die: StrengthReducedU32,
    dies_per_channel: StrengthReducedU32,
    channels: StrengthReducedU64,
    chips_per_channel: StrengthReducedU64,
    dies_per_chip: StrengthReducedU64,
    planes_per_die_64: StrengthReducedU64,
    sectors_per_page: StrengthReducedU64,
    bits_per_cell: StrengthReducedU32,
    pages_per_layer: StrengthReducedU32,
}

/// A size as a divisor; a zero (refused by validation, which may run after) divides as 1.
fn div32(n: u32) -> StrengthReducedU32 {
    StrengthReducedU32::new(n.max(1))
}

fn div64(n: u32) -> StrengthReducedU64 {
    StrengthReducedU64::new(n.max(1) as u64)
}

/// A physical page address taken apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageAddr {
    pub channel: u32,
    pub die: u32,
    pub plane: u32,
    pub block: u32,
    pub page: u32,
}

impl Geometry {
    pub fn new(c: &GeometryConfig) -> Geometry {
        let dies_per_channel = c.chips_per_channel * c.dies_per_chip;
        let dies = c.channels * dies_per_channel;
        let planes = dies * c.planes_per_die;
        let blocks = planes * c.blocks_per_plane;
        Geometry {
            channels: c.channels,
            chips_per_channel: c.chips_per_channel,
            dies_per_chip: c.dies_per_chip,
            planes_per_die: c.planes_per_die,
            blocks_per_plane: c.blocks_per_plane,
            pages_per_block: c.pages_per_block,
            page_size: c.page_size,
            layers: c.layers,
            pages_per_layer: c.pages_per_block / c.layers,
            cell: c.cell,
            dies,
            planes,
            blocks,
            pages: blocks as Ppn * c.pages_per_block as Ppn,
            dies_per_channel,
            div: Divisors {
                pages_per_block: div64(c.pages_per_block),
                blocks_per_plane: div32(c.blocks_per_plane),
                planes_per_die: div32(c.planes_per_die),
                dies_per_channel: div32(dies_per_channel),
                channels: div64(c.channels),
                chips_per_channel: div64(c.chips_per_channel),
                dies_per_chip: div64(c.dies_per_chip),
                planes_per_die_64: div64(c.planes_per_die),
                sectors_per_page: StrengthReducedU64::new((c.page_size as u64 / crate::nand::SECTOR_BYTES).max(1)),
                bits_per_cell: div32(c.cell.bits_per_cell() as u32),
                pages_per_layer: div32(c.pages_per_block / c.layers.max(1)),
            },
        }
    }

    pub fn physical_bytes(&self) -> u64 {
        self.pages * self.page_size as u64
    }

    pub fn sectors_per_page(&self) -> u64 {
        self.page_size as u64 / crate::nand::SECTOR_BYTES
    }

    /// The flash page (counted from sector 0) holding sector `sector`.
    #[inline]
    pub fn page_of_sector(&self, sector: u64) -> u64 {
        sector / self.div.sectors_per_page
    }

    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        (ppn / self.div.pages_per_block) as u32
    }

    #[inline]
    pub fn page_in_block(&self, ppn: Ppn) -> u32 {
        (ppn % self.div.pages_per_block) as u32
    }

    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        block / self.div.blocks_per_plane
    }

    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        plane / self.div.planes_per_die
    }

    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        die / self.div.dies_per_channel
    }

    #[inline]
    pub fn first_block_of_plane(&self, plane: u32) -> u32 {
        plane * self.blocks_per_plane
    }

    #[inline]
    pub fn ppn(&self, block: u32, page: u32) -> Ppn {
        block as Ppn * self.pages_per_block as Ppn + page as Ppn
    }

    /// First page of a block.
    #[inline]
    pub fn first_page(&self, block: u32) -> Ppn {
        self.ppn(block, 0)
    }

    /// The pages of a block.
    #[inline]
    pub fn block_pages(&self, block: u32) -> std::ops::Range<Ppn> {
        let first = self.first_page(block);
        first..first + self.pages_per_block as Ppn
    }

    /// Page type (0 = LSB, 1 = CSB or MSB, ...) of a page in its block. Pages of a word line
    /// are taken to be programmed in turn, so the type cycles with the page index.
    #[inline]
    pub fn page_type(&self, page_in_block: u32) -> usize {
        (page_in_block % self.div.bits_per_cell) as usize
    }

    /// Word-line layer of a page in a 3D block: the block spans all layers, each holding
    /// `pages_per_layer` consecutive pages.
    #[inline]
    pub fn layer_of(&self, page_in_block: u32) -> u32 {
        page_in_block / self.div.pages_per_layer
    }

    /// The pages that couple to page `ppn` in a 3D block (seed 000 Eq. 1): its neighbours on
    /// the same layer (Y) and on the layers above and below (Z), where they exist.
    pub fn coupled_pages(&self, ppn: Ppn) -> ([Option<Ppn>; 2], [Option<Ppn>; 2]) {
        let p = self.page_in_block(ppn);
        let n = self.pages_per_layer;
        let j = p % n;
        let y = [(j > 0).then(|| ppn - 1), (j + 1 < n).then(|| ppn + 1)];
        let z = [(p >= n).then(|| ppn - n as Ppn), (p + n < self.pages_per_block).then(|| ppn + n as Ppn)];
        (y, z)
    }

    /// The plane that static (CWDP) allocation assigns to a logical page: consecutive logical
    /// pages go to consecutive channels first, then chips (ways), dies and planes.
    #[inline]
    pub fn cwdp_plane(&self, lpn: u64) -> u32 {
        let dv = &self.div;
        let (q, ch) = StrengthReducedU64::div_rem(lpn, dv.channels);
        let (q, way) = StrengthReducedU64::div_rem(q, dv.chips_per_channel);
        let (q, die) = StrengthReducedU64::div_rem(q, dv.dies_per_chip);
        let plane = q % dv.planes_per_die_64;
        let (w, d, p) = (self.chips_per_channel as u64, self.dies_per_chip as u64, self.planes_per_die as u64);
        (((ch * w + way) * d + die) * p + plane) as u32
    }

    pub fn decode(&self, ppn: Ppn) -> PageAddr {
        let block = self.block_of(ppn);
        let plane = self.plane_of_block(block);
        let die = self.die_of_plane(plane);
        PageAddr { channel: self.channel_of_die(die), die, plane, block, page: self.page_in_block(ppn) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geo() -> Geometry {
        Geometry::new(&GeometryConfig {
            channels: 2,
            chips_per_channel: 3,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 10,
            pages_per_block: 8,
            page_size: 4096,
            layers: 2,
            cell: CellType::Tlc,
        })
    }

    #[test]
    fn counts_and_decoding_agree() {
        let g = geo();
        assert_eq!(g.dies, 12);
        assert_eq!(g.planes, 24);
        assert_eq!(g.pages, 24 * 10 * 8);
        let ppn = g.ppn(g.first_block_of_plane(13) + 4, 5);
        let a = g.decode(ppn);
        assert_eq!((a.plane, a.die, a.channel, a.page), (13, 6, 1, 5));
        assert_eq!(g.layer_of(5), 1);
        assert_eq!(g.page_type(5), 2);
    }

    #[test]
    fn page_addresses_past_2_pow_32_decode_and_couple() {
        // 16 x 8 x 4 dies x 4 planes x 4,096 blocks x 1,536 pages: 12.9e9 pages, no table
        // allocated (a geometry is arithmetic only).
        let g = Geometry::new(&GeometryConfig {
            channels: 16,
            chips_per_channel: 8,
            dies_per_chip: 4,
            planes_per_die: 4,
            blocks_per_plane: 4096,
            pages_per_block: 1536,
            page_size: 16384,
            layers: 192,
            cell: CellType::Qlc,
        });
        assert_eq!(g.pages, 16 * 8 * 4 * 4 * 4096 * 1536);
        assert_eq!(g.pages, 3 << 32);
        let last_block = g.blocks - 1;
        let ppn = g.ppn(last_block, 1535);
        assert_eq!(ppn, g.pages - 1);
        assert_eq!((g.block_of(ppn), g.page_in_block(ppn)), (last_block, 1535));
        let a = g.decode(ppn);
        assert_eq!((a.channel, a.die, a.plane, a.page), (15, g.dies - 1, g.planes - 1, 1535));
        assert_eq!(g.block_pages(last_block), g.pages - 1536..g.pages);
        // A page in the middle of a block past 2^32: neighbours on its layer and the layers
        // around it, all in its block.
        let block = (2u64 << 32).div_ceil(1536) as u32;
        let p = g.ppn(block, 8 * 3 + 2);
        assert!(p > 2 << 32);
        let (y, z) = g.coupled_pages(p);
        assert_eq!(y, [Some(p - 1), Some(p + 1)]);
        assert_eq!(z, [Some(p - 8), Some(p + 8)]);
        assert!(y.iter().chain(&z).flatten().all(|&q| g.block_of(q) == block));
    }

    #[test]
    fn cwdp_stripes_channels_first_and_covers_every_plane() {
        let g = geo();
        let first: Vec<u32> = (0..2).map(|l| g.channel_of_die(g.die_of_plane(g.cwdp_plane(l)))).collect();
        assert_eq!(first, vec![0, 1]);
        let mut seen = vec![false; g.planes as usize];
        for lpn in 0..g.planes as u64 {
            seen[g.cwdp_plane(lpn) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn reduced_divisions_agree_with_plain_ones() {
        // Sizes that are not powers of two (the reduced divisors multiply), and powers of two
        // (they shift), over page numbers up to and past 2^32.
        for (c, w, d, p, b, n) in [(3, 5, 3, 3, 7, 1536), (8, 4, 2, 2, 2048, 256), (6, 1, 1, 4, 1000, 1152)] {
            let g = Geometry::new(&GeometryConfig {
                channels: c,
                chips_per_channel: w,
                dies_per_chip: d,
                planes_per_die: p,
                blocks_per_plane: b,
                pages_per_block: n,
                page_size: 16384,
                layers: 8,
                cell: CellType::Qlc,
            });
            let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
            for i in 0..20_000u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let ppn = if i % 2 == 0 { x % g.pages } else { x % (1 << 40) };
                let block = ppn / n as u64;
                assert_eq!(g.block_of(ppn), block as u32);
                assert_eq!(g.page_in_block(ppn), (ppn % n as u64) as u32);
                let blk = (x >> 3) as u32 % g.blocks;
                assert_eq!(g.plane_of_block(blk), blk / b);
                assert_eq!(g.die_of_plane(blk % g.planes), (blk % g.planes) / p);
                assert_eq!(g.channel_of_die(blk % g.dies), (blk % g.dies) / (w * d));
                let page = (x >> 7) as u32 % n;
                assert_eq!(g.page_type(page), page as usize % 4);
                assert_eq!(g.layer_of(page), page / (n / g.layers));
                let lpn = x >> 20;
                let (cu, wu, du, pu) = (c as u64, w as u64, d as u64, p as u64);
                let plain = ((lpn % cu * wu + lpn / cu % wu) * du + lpn / (cu * wu) % du) * pu + lpn / (cu * wu * du) % pu;
                assert_eq!(g.cwdp_plane(lpn), plain as u32);
            }
        }
    }
}
