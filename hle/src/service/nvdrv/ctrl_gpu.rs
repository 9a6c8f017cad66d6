//! `/dev/nvhost-ctrl-gpu`: what the GPU is. The Switch's is the Tegra X1's GM20B; its characteristics are the
//! values libnx's `nvidia/ioctl.h` records the console reporting.

use super::{IoctlResult, NvResult};

const ZCULL_GET_CTX_SIZE: u32 = 0x8004_4701;
const ZCULL_GET_INFO: u32 = 0x8028_4702;
/// libnx numbers ZbcSetTable as reading (0x802c4703), Linux's nvgpu as writing (0x402c4703); both come here.
const ZBC_SET_TABLE: [u32; 2] = [0x802c_4703, 0x402c_4703];
const ZBC_QUERY_TABLE: u32 = 0xc034_4704;
pub const GET_CHARACTERISTICS: u32 = 0xc0b0_4705;
pub const GET_TPC_MASKS: u32 = 0xc018_4706;
const FLUSH_L2: u32 = 0x4008_4707;
const ZBC_GET_ACTIVE_SLOT_MASK: u32 = 0x8008_4714;
const GET_GPU_TIME: u32 = 0xc010_471c;

/// ZCullGetInfo's ten words, as libnx's `nvioctl_zcull_info` comments record the console answering: width and
/// height alignment, pixel squares by aliquots, aliquot total, region byte multiplier, region header size,
/// subregion header size, subregion width and height alignment, subregion count.
const ZCULL_INFO: [u32; 10] = [0x20, 0x20, 0x400, 0x800, 0x20, 0x20, 0xc0, 0x20, 0x40, 0x10];

/// Bytes of the characteristics structure, which GetCharacteristics also reports as the buffer size it filled.
const CHARACTERISTICS_SIZE: u64 = 0xa0;
/// TPCs in the GM20B's one GPC.
const TPCS_PER_GPC: u32 = 2;

/// The GM20B's characteristics, field by field in the structure's order: (size in bytes, value).
const GM20B: &[(usize, u64)] = &[
    (4, 0x120),   // arch: GM200
    (4, 0xb),     // impl: GM20B
    (4, 0xa1),    // revision A1
    (4, 1),       // GPCs
    (8, 0x40000), // L2 cache size
    (8, 0),       // on-board video memory: none
    (4, TPCS_PER_GPC as u64),
    (4, 0x20),           // bus: AXI
    (4, 0x20000),        // big page size
    (4, 0x20000),        // compression page size
    (4, 0x1b),           // PDE coverage bits
    (4, 0x30000),        // available big page sizes (64 KiB, 128 KiB)
    (4, 1),              // GPC mask
    (4, 0x503),          // SM version
    (4, 0x503),          // SPA version
    (4, 0x80),           // warps per SM
    (4, 0x28),           // GPU virtual address bits
    (4, 0),              // reserved
    (8, 0x55),           // flags
    (4, 0x902d),         // 2D class
    (4, 0xb197),         // 3D class
    (4, 0xb1c0),         // compute class
    (4, 0xb06f),         // GPFIFO class
    (4, 0xa140),         // inline-to-memory class
    (4, 0xb0b5),         // DMA copy class
    (4, 1),              // FBPs
    (4, 0),              // FBP enable mask
    (4, 2),              // LTCs per FBP
    (4, 1),              // LTSs per LTC
    (4, 0),              // textures per TPC
    (4, 1),              // GPCs at most
    (4, 0x21d70),        // ROP/L2 enable mask 0
    (4, 0),              // ROP/L2 enable mask 1
    (8, 0x62_3032_6d67), // chip name "gm20b"
    (8, 0),              // compression bit store base
];

/// Runs `request` on its argument at guest time `ticks` (19.2 MHz); `None` for an ioctl this device does not have.
pub fn ioctl(request: u32, argument: &[u8], ticks: u64) -> Option<IoctlResult> {
    let mut argument = argument.to_vec();
    let put_words = |mut argument: Vec<u8>, words: &[u32]| {
        for (at, word) in words.iter().enumerate() {
            argument[4 * at..4 * at + 4].copy_from_slice(&word.to_le_bytes());
        }
        Ok(argument)
    };
    Some(match request {
        // {out u32 size}: the context zcull needs, in bytes (the console answers 1: it keeps none per context).
        ZCULL_GET_CTX_SIZE => put_words(argument, &[1]),
        ZCULL_GET_INFO => put_words(argument, &ZCULL_INFO),
        // Zero-bandwidth clears are a compression optimisation; colours and depths read back the same without it.
        _ if ZBC_SET_TABLE.contains(&request) => Ok(argument),
        // {colour and depth values, ref count, format, type, in index / out table size}: an empty table.
        ZBC_QUERY_TABLE => put_words(argument, &[0; 13]),
        // {in u32 flags (L2 flush, L2 invalidate, FB flush)}: memory is coherent here.
        FLUSH_L2 => Ok(argument),
        // {out u32 slot, out u32 mask}.
        ZBC_GET_ACTIVE_SLOT_MASK => put_words(argument, &[7, 1]),
        // {out u64 nanoseconds, reserved}: the GPU's clock, from guest time.
        GET_GPU_TIME => {
            argument[..8].copy_from_slice(&crate::service::nvdrv::ticks_to_nanoseconds(ticks).to_le_bytes());
            Ok(argument)
        }
        // {in u64 buffer size, in u64 buffer address (both non-zero), out characteristics}; the size comes back as
        // the structure's.
        GET_CHARACTERISTICS => {
            let size = u64::from_le_bytes(argument[..8].try_into().expect("0xb0 bytes"));
            let address = u64::from_le_bytes(argument[8..16].try_into().expect("0xb0 bytes"));
            if size == 0 || address == 0 {
                return Some(Err(NvResult::BadParameter));
            }
            argument[..8].copy_from_slice(&CHARACTERISTICS_SIZE.to_le_bytes());
            let mut at = 16;
            for &(bytes, value) in GM20B {
                argument[at..at + bytes].copy_from_slice(&value.to_le_bytes()[..bytes]);
                at += bytes;
            }
            Ok(argument)
        }
        // {in u32 buffer size, padding, in u64 buffer address, out u8[8]}: one mask of present TPCs per GPC.
        GET_TPC_MASKS => {
            if u32::from_le_bytes(argument[..4].try_into().expect("0x18 bytes")) == 0 {
                return Some(Err(NvResult::BadParameter));
            }
            argument[16..20].copy_from_slice(&((1u32 << TPCS_PER_GPC) - 1).to_le_bytes());
            Ok(argument)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_characteristics_fill_their_structure_exactly() {
        let size: usize = super::GM20B.iter().map(|(bytes, _)| bytes).sum();
        assert_eq!(size as u64, super::CHARACTERISTICS_SIZE);
    }
}
