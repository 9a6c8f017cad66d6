//! Stream output (transform feedback) of the 3D engine: which output words of the vertex program each of the
//! four buffers takes, where the buffers are, and how the primitives a draw assembles land in them. Method
//! offsets and fields from open-gpu-doc clb197.h; what they mean as NVK and nvc0 program them:
//!
//! - SET_STREAM_OUT_LAYOUT_SELECT(j) holds buffer j's selects, one byte each, lowest byte first: select k is
//!   the output attribute word (byte address / 4) that goes to bytes 4k..4k+4 of each vertex; 0xFF skips the
//!   word (those bytes are left as they are), and selects from COMPONENT_COUNT on are not read.
//! - Each vertex takes STRIDE bytes from the buffer's write pointer, which LOAD_WRITE_POINTER sets and each
//!   vertex moves on; it persists across draws (drivers read it back with a STREAMING_BYTE_COUNT report).
//! - Primitives are written whole: when any buffer lacks room for one (SIZE counts from the buffer's address),
//!   none of its vertices goes to any buffer. The needed count counts every primitive, the succeeded count the
//!   written ones.
//! - Strips, loops and fans are written as lists, their vertices ordered as Vulkan's transform feedback orders
//!   them for the provoking vertex mode (SET_PROVOKING_VERTEX), which keeps each primitive's winding and its
//!   provoking vertex; quads, quad strips and polygons have no rule anyone documents and stop naming themselves.
//!
//! - Each buffer takes the vertex stream SET_STREAM_OUT_CONTROL_STREAM selects: a vertex program's (and a
//!   tessellation evaluation program's) vertices are stream 0's; a geometry program emits on any of the four. A
//!   primitive is written when every buffer of its stream has room, and each stream counts its own needed and
//!   written primitives (a report's SUB_REPORT picks the stream).

use super::draw::Topology;
use super::{Context, EngineError, Method};
use crate::backend::Captured;
use crate::shader::CapturedWords;

pub const SET_STREAM_OUT_BUFFER_ENABLE: u32 = 0x0380;
/// SET_STREAM_OUT_BUFFER_ENABLE, _ADDRESS_A, _ADDRESS_B, _SIZE, _LOAD_WRITE_POINTER, then the next buffer's.
pub const BUFFER_STRIDE: u32 = 32;
pub const SET_STREAM_OUT_BUFFER_LOAD_WRITE_POINTER: u32 = 0x0390;
/// SET_STREAM_OUT_CONTROL_STREAM, _COMPONENT_COUNT, _STRIDE, then the next buffer's.
pub const SET_STREAM_OUT_CONTROL_STREAM: u32 = 0x0700;
pub const CONTROL_STRIDE: u32 = 16;
pub const SET_STREAM_OUTPUT: u32 = 0x0744;
/// 32 words of selects per buffer.
pub const SET_STREAM_OUT_LAYOUT_SELECT: u32 = 0x2800;
pub const LAYOUT_STRIDE: u32 = 128;
pub const DRAW_AUTO: u32 = 0x123c;
pub const SET_DRAW_AUTO_STRIDE: u32 = 0x1318;
pub const SET_DRAW_AUTO_START: u32 = 0x13a4;
pub const BUFFERS: usize = 4;
/// A select that takes no word.
const SKIP: u32 = 0xff;

/// Vertex streams.
pub const STREAMS: usize = 4;

/// The write pointers, and the counters of the primitives each vertex stream needed and wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamOutState {
    pub write_pointers: [u32; BUFFERS],
    pub primitives_needed: [u64; STREAMS],
    pub primitives_succeeded: [u64; STREAMS],
}

/// One enabled buffer of a draw's stream output.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Buffer {
    index: usize,
    stream: u8,
    address: u64,
    size: u32,
    stride: u32,
    /// (byte offset in the vertex, output attribute word).
    words: Vec<(u32, u32)>,
}

/// What a draw's stream output writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamOut {
    buffers: Vec<Buffer>,
    /// The output words any buffer takes: what the back end captures of each vertex, in ascending order.
    pub capture: CapturedWords,
}

impl StreamOut {
    /// The stream output a draw does, from the registers (`register` reads one by method offset); `None` when
    /// SET_STREAM_OUTPUT is off or no enabled buffer takes a word.
    pub fn from_registers(register: impl Fn(u32) -> u32) -> Option<StreamOut> {
        if register(SET_STREAM_OUTPUT) & 1 == 0 {
            return None;
        }
        let mut capture = CapturedWords::default();
        let mut buffers = Vec::new();
        for j in 0..BUFFERS as u32 {
            let buffer = |k: u32| register(SET_STREAM_OUT_BUFFER_ENABLE + BUFFER_STRIDE * j + 4 * k);
            let control = |k: u32| register(SET_STREAM_OUT_CONTROL_STREAM + CONTROL_STRIDE * j + 4 * k);
            if buffer(0) & 1 == 0 {
                continue;
            }
            let count = control(1) & 0xff;
            let words: Vec<(u32, u32)> = (0..count)
                .map(|k| {
                    (
                        4 * k,
                        register(SET_STREAM_OUT_LAYOUT_SELECT + LAYOUT_STRIDE * j + k / 4 * 4) >> (8 * (k % 4)) & 0xff,
                    )
                })
                .filter(|&(_, word)| word != SKIP)
                .collect();
            if words.is_empty() {
                continue;
            }
            for &(_, word) in &words {
                capture[(word / 32) as usize] |= 1 << (word % 32);
            }
            buffers.push(Buffer {
                index: j as usize,
                stream: (control(0) & 3) as u8,
                address: u64::from(buffer(1) & 0xff) << 32 | u64::from(buffer(2)),
                size: buffer(3),
                stride: control(2),
                words,
            });
        }
        (!buffers.is_empty()).then_some(StreamOut { buffers, capture })
    }

    /// Writes the primitives of a run of `topology` on vertex stream `stream` into that stream's buffers:
    /// `captured` holds each vertex's captured words (`capture`'s, ascending), vertex after vertex.
    pub fn write(
        &self,
        at: Method,
        run: &Captured,
        provoking_last: bool,
        state: &mut StreamOutState,
        context: &mut Context,
    ) -> Result<(), EngineError> {
        let Captured { topology, stream, words: captured } = run;
        let (topology, stream) = (*topology, usize::from(*stream));
        let buffers: Vec<&Buffer> = self.buffers.iter().filter(|buffer| usize::from(buffer.stream) == stream).collect();
        // A vertex's captured words, ascending, and where each buffer's selects find theirs among them.
        let captured_order: Vec<u32> = crate::shader::captured_words(&self.capture).collect();
        let per_vertex = captured_order.len();
        let vertex_count = captured.len().checked_div(per_vertex).unwrap_or(0);
        let (size, order) = captured_primitives(topology, vertex_count, provoking_last).ok_or_else(|| {
            at.unimplemented(format!("stream output of {topology:?} (no source gives the order of its vertices)"))
        })?;
        let layouts: Vec<Vec<(u32, usize)>> = buffers
            .iter()
            .map(|buffer| {
                let slot = |word: u32| captured_order.binary_search(&word).expect("a captured word");
                buffer.words.iter().map(|&(offset, word)| (offset, slot(word))).collect()
            })
            .collect();
        for primitive in order.chunks_exact(size) {
            state.primitives_needed[stream] += 1;
            let fits = buffers.iter().all(|buffer| {
                let end = u64::from(state.write_pointers[buffer.index]) + size as u64 * u64::from(buffer.stride);
                end <= u64::from(buffer.size)
            });
            if !fits {
                continue;
            }
            state.primitives_succeeded[stream] += 1;
            for &vertex in primitive {
                let words = &captured[vertex * per_vertex..(vertex + 1) * per_vertex];
                for (buffer, layout) in buffers.iter().zip(&layouts) {
                    let pointer = &mut state.write_pointers[buffer.index];
                    for &(offset, slot) in layout {
                        let value = words[slot];
                        let address = buffer.address + u64::from(*pointer) + u64::from(offset);
                        context.write(address, &value.to_le_bytes()).map_err(|e| at.memory(e))?;
                    }
                    *pointer += buffer.stride;
                }
            }
        }
        Ok(())
    }
}

/// The vertices of each whole primitive of `count` vertices of `topology`, in the order stream output writes
/// them, and how many a primitive has; `None` for the topologies with no known order.
fn captured_primitives(topology: Topology, count: usize, provoking_last: bool) -> Option<(usize, Vec<usize>)> {
    use Topology::*;
    Some(match topology {
        Points => (1, (0..count).collect()),
        Lines => (2, (0..count / 2 * 2).collect()),
        LineStrip => (2, (1..count).flat_map(|i| [i - 1, i]).collect()),
        LineLoop if count >= 2 => (2, (1..count).flat_map(|i| [i - 1, i]).chain([count - 1, 0]).collect()),
        LineLoop => (2, Vec::new()),
        Triangles => (3, (0..count / 3 * 3).collect()),
        // Odd triangles swap two vertices to keep the winding; which two keeps the provoking vertex in place.
        TriangleStrip => (
            3,
            (0..count.saturating_sub(2))
                .flat_map(|i| match (i % 2 == 1, provoking_last) {
                    (false, _) => [i, i + 1, i + 2],
                    (true, false) => [i, i + 2, i + 1],
                    (true, true) => [i + 1, i, i + 2],
                })
                .collect(),
        ),
        TriangleFan => (
            3,
            (1..count.saturating_sub(1))
                .flat_map(|i| if provoking_last { [0, i, i + 1] } else { [i, i + 1, 0] })
                .collect(),
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strips and fans become lists whose triangles wind as the strip's do and start (FIRST) or end (LAST)
    /// with the provoking vertex Vulkan names for them: strip triangle i's is i (FIRST) or i + 2 (LAST), fan
    /// triangle i's is i + 1 or i + 2.
    #[test]
    fn strips_and_fans_unroll_keeping_winding_and_provoking_vertex() {
        let order = |topology, count, last| captured_primitives(topology, count, last).unwrap().1;
        assert_eq!(order(Topology::TriangleStrip, 5, false), [0, 1, 2, 1, 3, 2, 2, 3, 4]);
        assert_eq!(order(Topology::TriangleStrip, 5, true), [0, 1, 2, 2, 1, 3, 2, 3, 4]);
        assert_eq!(order(Topology::TriangleFan, 4, false), [1, 2, 0, 2, 3, 0]);
        assert_eq!(order(Topology::TriangleFan, 4, true), [0, 1, 2, 0, 2, 3]);
        assert_eq!(order(Topology::LineLoop, 3, false), [0, 1, 1, 2, 2, 0]);
        assert_eq!(order(Topology::Triangles, 7, false), [0, 1, 2, 3, 4, 5]);
        assert!(captured_primitives(Topology::Quads, 4, false).is_none());
    }

    /// The selects are bytes, lowest first, 0xFF skips, and COMPONENT_COUNT ends them; each buffer keeps its
    /// stream; a disabled buffer takes nothing.
    #[test]
    fn layout_selects_name_output_words() {
        let mut registers = std::collections::HashMap::new();
        registers.insert(SET_STREAM_OUTPUT, 1);
        registers.insert(SET_STREAM_OUT_BUFFER_ENABLE, 1);
        registers.insert(SET_STREAM_OUT_BUFFER_ENABLE + 4, 0x12);
        registers.insert(SET_STREAM_OUT_BUFFER_ENABLE + 8, 0x3400);
        registers.insert(SET_STREAM_OUT_BUFFER_ENABLE + 12, 0x100);
        registers.insert(SET_STREAM_OUT_CONTROL_STREAM + 4, 5);
        registers.insert(SET_STREAM_OUT_CONTROL_STREAM + 8, 24);
        registers.insert(SET_STREAM_OUT_LAYOUT_SELECT, 0x1fff_1d1c);
        registers.insert(SET_STREAM_OUT_LAYOUT_SELECT + 4, 0x2120);
        // Buffer 1: enabled, stream 1.
        registers.insert(SET_STREAM_OUT_BUFFER_ENABLE + BUFFER_STRIDE, 1);
        registers.insert(SET_STREAM_OUT_CONTROL_STREAM + CONTROL_STRIDE, 1);
        registers.insert(SET_STREAM_OUT_CONTROL_STREAM + CONTROL_STRIDE + 4, 4);
        registers.insert(SET_STREAM_OUT_LAYOUT_SELECT + LAYOUT_STRIDE, 0x2b2a_2928);
        // Buffer 2: stream 2, not enabled.
        registers.insert(SET_STREAM_OUT_CONTROL_STREAM + 2 * CONTROL_STRIDE, 2);
        registers.insert(SET_STREAM_OUT_CONTROL_STREAM + 2 * CONTROL_STRIDE + 4, 4);
        registers.insert(SET_STREAM_OUT_LAYOUT_SELECT + 2 * LAYOUT_STRIDE, 0x3c3d_3e3f);
        let stream_out = StreamOut::from_registers(|offset| registers.get(&offset).copied().unwrap_or(0)).unwrap();
        assert_eq!(
            stream_out.buffers,
            [
                Buffer {
                    index: 0,
                    stream: 0,
                    address: 0x12_0000_3400,
                    size: 0x100,
                    stride: 24,
                    words: vec![(0, 0x1c), (4, 0x1d), (12, 0x1f), (16, 0x20)],
                },
                Buffer {
                    index: 1,
                    stream: 1,
                    address: 0,
                    size: 0,
                    stride: 0,
                    words: vec![(0, 0x28), (4, 0x29), (8, 0x2a), (12, 0x2b)],
                }
            ]
        );
        assert_eq!(stream_out.capture, [0xb000_0000, 0xf01, 0, 0, 0, 0, 0, 0]);
    }
}
