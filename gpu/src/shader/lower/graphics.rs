//! The graphics stages' part of lowering: attributes (ALD, AST, IPA, AL2P), vertex handles (ISBERD) and
//! geometry output (OUT), for both instruction sets.

use super::Lower;
use crate::sass::text::View;
use crate::shader::ir::{BinOp, Cmp, Op, Space, VERTEX_ATTRIBUTE_BYTES, Value};

/// The vertex stream an OUT names: known when the program is translated, or a register's value at run time.
#[derive(Clone, Copy)]
pub(in crate::shader) enum OutStream {
    Known(u8),
    Register(Value),
}

impl Lower<'_> {
    /// ALD and AST of both ISAs: `size` + 1 words between registers from rd (rs) and the attribute space at
    /// the byte address, immediate or, physical (.PHYS: sm5x's with ra not RZ), ra's value: AL2P gives
    /// physical addresses equal to the logical ones (ALD.O reads the stage's own outputs; AST writes them). A vertex
    /// register rb (not RZ) names, for ALD, the input vertex read (a geometry program's handle from ISBERD,
    /// which is the vertex's number: `Special::InvocationInfo`); for AST, the output vertex being written (a
    /// handle from OUT), which is always the one OUT.EMIT takes next. Per-patch words (.P, at an immediate
    /// address; the caller refuses an index register) are the patch's, whatever vertex rb names.
    pub(in crate::shader) fn attribute_words(&mut self, v: &View) {
        let load = v.encoding.opcode == "ALD";
        let register = if load { v.get("rd") } else { v.get("rs") };
        if v.flag("patch") || v.encoding.form() == "P" {
            for k in 0..=v.get("size") {
                let address = v.get("address") as u32 + 4 * k as u32;
                if load {
                    let value = self.op(Op::PatchLoad(address));
                    self.set_reg(register + k, value);
                } else {
                    let value = self.reg(register + k);
                    self.op(Op::PatchStore(address, value));
                }
            }
            return;
        }
        let vertex = (load && v.get("rb") != 255).then(|| {
            let vertex = self.reg(v.get("rb"));
            let shift = self.const32(VERTEX_ATTRIBUTE_BYTES.trailing_zeros());
            self.bin(BinOp::Shl, vertex, shift)
        });
        let space = match (load && !v.flag("output"), vertex) {
            (true, Some(_)) => Space::VertexAttribute,
            (true, None) => Space::Attribute,
            (false, _) => Space::Output,
        };
        let physical = v.encoding.form() == "PHYS" || (v.encoding.form() == "" && v.has("ra") && v.get("ra") != 255);
        let start = match physical {
            true => self.reg(v.get("ra")),
            false => self.const32(v.get("address") as u32),
        };
        let start = match vertex {
            Some(base) => self.bin(BinOp::Add, base, start),
            None => start,
        };
        for k in 0..=v.get("size") {
            let offset = self.const32(4 * k as u32);
            let address = self.bin(BinOp::Add, start, offset);
            if load {
                let value = self.op(Op::Load { space, address });
                self.set_reg(register + k, value);
            } else {
                let value = self.reg(register + k);
                self.op(Op::Store { space, address, value });
            }
        }
    }

    /// OUT of both ISAs: a vertex made of the outputs (`emit`), then the primitive's end (`cut`), on vertex
    /// stream `stream` (`out_stream`). The handle rd receives is the one ra gave: the hardware's handles only name
    /// output vertices for AST, which writes the next one whatever it names.
    pub(in crate::shader) fn geometry_output(&mut self, emit: bool, cut: bool, rd: u64, ra: u64, stream: OutStream) {
        let output = |l: &mut Self, stream: u8| {
            if emit {
                l.op(Op::EmitVertex(stream));
            }
            if cut {
                l.op(Op::EndPrimitive(stream));
            }
        };
        match stream {
            OutStream::Known(stream) => output(self, stream),
            // The host's streams are constants: one guarded output for each (a value past 3 outputs nothing;
            // no source says what the hardware does with one).
            OutStream::Register(value) => {
                for stream in 0..4 {
                    let number = self.const32(u32::from(stream));
                    let this = self.cmp(Cmp::Eq, value, number);
                    self.guarded(Some(this), |l| output(l, stream));
                }
            }
        }
        let handle = self.reg(ra);
        self.set_reg(rd, handle);
    }

    /// OUT's vertex stream, from its register (RZ: 0) or immediate operand; `None` for an immediate, or a
    /// register whose value is known when the program is translated, past 3.
    pub(in crate::shader) fn out_stream(&mut self, register: Option<u64>, immediate: Option<u64>) -> Option<OutStream> {
        let stream = match (register, immediate) {
            (Some(255), _) => 0,
            (Some(rb), _) => {
                let value = self.reg(rb);
                match self.known_constant(value) {
                    Some(stream) => stream,
                    None => return Some(OutStream::Register(value)),
                }
            }
            (None, Some(value)) => u32::try_from(value).ok()?,
            (None, None) => return None,
        };
        (stream < 4).then_some(OutStream::Known(stream as u8))
    }

    /// An input attribute word as IPA reads it: the pixel's interpolation of it (see `spirv::graphics`), at a
    /// byte address (U32).
    pub(in crate::shader) fn attribute(&mut self, address: Value) -> Value {
        self.op(Op::Load { space: Space::Attribute, address })
    }

    /// IPA's attribute at a location (`sample`: 0 the pixel centre, 1 the centroid, 2 `offset` from the centre,
    /// whose register or constant the caller reads), at an immediate address.
    pub(in crate::shader) fn attribute_at(
        &mut self,
        address: u32,
        sample: u64,
        offset: impl FnOnce(&mut Self) -> Value,
    ) -> Value {
        match sample {
            1 => self.op(Op::InterpolateAt { address, offset: None }),
            2 => {
                let offset = offset(self);
                self.op(Op::InterpolateAt { address, offset: Some(offset) })
            }
            _ => {
                let address = self.const32(address);
                self.attribute(address)
            }
        }
    }

    /// ISBERD of both ISAs: the handle of the input vertex [ra + offset] numbers (SM5x has no offset), which is
    /// that number (`Special::InvocationInfo`). Refused (`None`) in its other modes (.SKEW, .O, .PATCH, .PRIM,
    /// .ATTR, sizes), which read other entries of the stage buffer.
    pub(in crate::shader) fn vertex_handle(&mut self, v: &View) -> Option<()> {
        if v.flag("skew") || v.flag("output") || v.get("mode") != 0 || v.get("size") != 0 {
            return None;
        }
        let (base, offset) = (self.reg(v.get("ra")), self.const32(v.get("offset") as u32));
        let vertex = self.bin(BinOp::Add, base, offset);
        self.set_reg(v.get("rd"), vertex);
        Some(())
    }

    /// AL2P of both ISAs: the physical address of an attribute (`Lower::attribute_words`), which is its logical
    /// one: ra plus the signed offset, or the 10-bit offset alone when ra is RZ. Refused (`None`) with a predicate
    /// destination, whose meaning no source gives.
    pub(in crate::shader) fn attribute_to_physical(&mut self, v: &View) -> Option<()> {
        if v.has("pd") && v.get("pd") != 7 {
            return None;
        }
        let address = match v.get("ra") {
            255 => self.const32((v.get("address") & 0x3ff) as u32),
            ra => {
                let (base, offset) = (self.reg(ra), self.const32(v.signed("address") as u32));
                self.bin(BinOp::Add, base, offset)
            }
        };
        self.set_reg(v.get("rd"), address);
        Some(())
    }
}
