//! The 3D engine, `MAXWELL_B` (B197): its whole method space kept as registers (a method's last argument is its
//! register's value), the MME shadow RAM the macro engine's `Read` sees, the macro engine's upload and calls, and
//! the methods that act.
//!
//! Shadow RAM (`SET_MME_SHADOW_RAM_CONTROL`, semantics from Mesa's hardware test `mme_shadow_ram_control_behaviors`):
//! method tracking (modes 0, 1) stores each method's value in the shadow too, passthrough (2) leaves the shadow as
//! it is, replay (3) acts on the shadow's value instead of the one written.
//!
//! Invariant: a macro runs once all the parameters of its call have come — at the next method that is not one
//! of its parameters, or when the channel has nothing left to do (the hardware's MME stalls on an empty
//! parameter FIFO instead; both run the macro on the same parameters before any later method).

use super::counters::Statistic;
use super::draw::DrawState;
use super::inline_to_memory::{self, InlineToMemory};
use super::mme::{MacroEngine, MacroTarget};
use super::semaphore::{Reduction, ReductionOp, Release, report_reduction};
use super::stream_out::STREAMS;
use super::{Class, Context, EngineError, Method, SET_RENDER_ENABLE_C};
use crate::backend::{ColorClear, DepthStencilClear, GpuMemory, Rect};
use crate::channel::Wait;
use crate::syncpoint::has_reached;
use crate::texture::format::{ColorFormat, DepthFormat};
use crate::texture::surface::{Layout, Slices, Surface};

/// Registers: every method below the macro calls (byte offsets 0 to 0x37fc).
pub const REGISTER_COUNT: usize = 0xe00;

pub const LOAD_MME_INSTRUCTION_RAM_POINTER: u32 = 0x0114;
pub const LOAD_MME_INSTRUCTION_RAM: u32 = 0x0118;
pub const LOAD_MME_START_ADDRESS_RAM_POINTER: u32 = 0x011c;
pub const LOAD_MME_START_ADDRESS_RAM: u32 = 0x0120;
pub const SET_MME_SHADOW_RAM_CONTROL: u32 = 0x0124;
pub const INCREMENT_SYNC_POINT: u32 = 0x02c8;
pub const SET_REPORT_SEMAPHORE_A: u32 = 0x1b00;
pub const SET_REPORT_SEMAPHORE_B: u32 = 0x1b04;
pub const SET_REPORT_SEMAPHORE_C: u32 = 0x1b08;
pub const SET_REPORT_SEMAPHORE_D: u32 = 0x1b0c;
/// Ampere's report semaphore: payload and address in pairs of registers, then the operation (clc797.h).
const SET_REPORT_SEMAPHORE_PAYLOAD_LOWER: u32 = 0x158;
const SET_REPORT_SEMAPHORE_PAYLOAD_UPPER: u32 = 0x15c;
const SET_REPORT_SEMAPHORE_ADDRESS_LOWER: u32 = 0x160;
const SET_REPORT_SEMAPHORE_ADDRESS_UPPER: u32 = 0x164;
const REPORT_SEMAPHORE_EXECUTE: u32 = 0x168;
/// `SET_COLOR_TARGET_A(j)` and the rest of target j's registers, 64 bytes apart.
pub const SET_COLOR_TARGET_A: u32 = 0x0800;
pub const COLOR_TARGET_STRIDE: u32 = 64;
pub const SET_CLEAR_RECT_HORIZONTAL: u32 = 0x0d6c;
pub const SET_CLEAR_RECT_VERTICAL: u32 = 0x0d70;
pub const SET_COLOR_CLEAR_VALUE: u32 = 0x0d80;
pub const SET_SCISSOR_ENABLE: u32 = 0x0e00;
pub const SET_SCISSOR_HORIZONTAL: u32 = 0x0e04;
pub const SET_SCISSOR_VERTICAL: u32 = 0x0e08;
pub const SET_CLEAR_SURFACE_CONTROL: u32 = 0x10f8;
pub const SET_CT_SELECT: u32 = 0x121c;
pub const CLEAR_SURFACE: u32 = 0x19d0;
pub const SET_Z_CLEAR_VALUE: u32 = 0x0d90;
pub const SET_STENCIL_CLEAR_VALUE: u32 = 0x0da0;
pub const SET_ZT_A: u32 = 0x0fe0;
pub const SET_ZT_FORMAT: u32 = 0x0fe8;
pub const SET_ZT_BLOCK_SIZE: u32 = 0x0fec;
pub const SET_ZT_ARRAY_PITCH: u32 = 0x0ff0;
pub const SET_ZT_SIZE_A: u32 = 0x1228;
pub const SET_ZT_SIZE_B: u32 = 0x122c;
pub const SET_ZT_SIZE_C: u32 = 0x1230;
pub const SET_ZT_LAYER: u32 = 0x179c;
pub const SET_ANTI_ALIAS: u32 = 0x15d0;
pub const SET_STENCIL_MASK: u32 = 0x139c;
pub const SET_ZT_SELECT: u32 = 0x1538;
pub const CLEAR_REPORT_VALUE: u32 = 0x1530;
/// SET_REPORT_SEMAPHORE_D's REPORT values Tandem counts.
const REPORT_DA_VERTICES_GENERATED: u32 = 0x01;
const REPORT_ZPASS_PIXEL_CNT: u32 = 0x02;
const REPORT_DA_PRIMITIVES_GENERATED: u32 = 0x03;
const REPORT_ZPASS_PIXEL_CNT64: u32 = 0x15;
const REPORT_STREAMING_PRIMITIVES_SUCCEEDED: u32 = 0x0b;
const REPORT_STREAMING_PRIMITIVES_NEEDED: u32 = 0x0d;
const REPORT_STREAMING_BYTE_COUNT: u32 = 0x1a;
const REPORT_STREAMING_PRIMITIVES_NEEDED_MINUS_SUCCEEDED: u32 = 0x06;
const REPORT_TOTAL_STREAMING_PRIMITIVES_NEEDED_MINUS_SUCCEEDED: u32 = 0x1e;
/// `CALL_MME_MACRO(j)` at 0x3800 + 8j, `CALL_MME_DATA(j)` at 0x3804 + 8j.
pub const CALL_MME_MACRO: u32 = 0x3800;

/// Methods that do something beyond keeping their value and that Tandem does not carry out yet (draws, constant
/// buffer loads and binds, notifies, falcon calls): calling one stops the run naming it. Names as in clb197.h; an
/// array's every element counts.
const UNIMPLEMENTED_ACTIONS: &[&str] = &[
    "NOTIFY",
    "PEER_SEMAPHORE_RELEASE",
    "DRAW_ZERO_INDEX",
    "CLEAR_CLIP_ID_SURFACE",
    "UNBIND_ALL",
    "LOAD_PRIMITIVE_ID",
    "ADD_TO_PRIMITIVE_ID",
    // AMPERE_B's alone.
    "LOAD_ROOT_TABLE",
    "FE_ATOMIC_SEQUENCE_BEGIN",
    "FE_ATOMIC_SEQUENCE_END",
    "MME_DMA_READ",
    "MME_DMA_READ_FIFOED",
    "MME_DMA_WRITE",
    "MME_DMA_REDUCTION",
    "MME_DMA_SYSMEMBAR",
    "MME_DMA_SYNC",
    "SET_MME_DATA_FIFO_CONFIG",
    "MME_DMA_WRITE_METHOD_BARRIER",
];

/// SET_FALCON00 to SET_FALCON31: calls into the class's firmware, undocumented.
const FALCON_METHODS: std::ops::RangeInclusive<u32> = 0x2300..=0x237c;

/// Whether `offset` is one of [`UNIMPLEMENTED_ACTIONS`] in `class`'s method table or a falcon call.
fn is_unimplemented_action(class: Class, offset: u32) -> bool {
    if FALCON_METHODS.contains(&offset) {
        return true;
    }
    let offsets = |class: Class| -> Vec<u32> {
        let table = super::methods::table(Some(class));
        let names = UNIMPLEMENTED_ACTIONS.iter();
        names.flat_map(|name| (0..).map_while(move |index| table.offset(name, index))).collect()
    };
    static MAXWELL: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    static AMPERE: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    let offsets = match class {
        Class::Ampere3D => AMPERE.get_or_init(|| offsets(Class::Ampere3D)),
        _ => MAXWELL.get_or_init(|| offsets(Class::Maxwell3D)),
    };
    offsets.contains(&offset)
}

/// A macro call whose parameters are still coming.
#[derive(Clone, Debug)]
struct PendingMacro {
    index: u32,
    parameters: Vec<u32>,
}

pub struct Maxwell3D {
    /// `Class::Maxwell3D`, or `Class::Ampere3D`: the same engine with Ampere's differences.
    class: Class,
    registers: Box<[u32; REGISTER_COUNT]>,
    shadow: Box<[u32; REGISTER_COUNT]>,
    macros: MacroEngine,
    inline_to_memory: InlineToMemory,
    pending_macro: Option<PendingMacro>,
    pub(super) draw: DrawState,
}

impl Default for Maxwell3D {
    fn default() -> Maxwell3D {
        Maxwell3D::new(Class::Maxwell3D)
    }
}

impl Maxwell3D {
    pub fn new(class: Class) -> Maxwell3D {
        let mut engine = Maxwell3D {
            class,
            registers: Box::new([0; REGISTER_COUNT]),
            shadow: Box::new([0; REGISTER_COUNT]),
            macros: MacroEngine::default(),
            inline_to_memory: InlineToMemory::default(),
            pending_macro: None,
            draw: DrawState::default(),
        };
        // Rendering is enabled until a program says otherwise (SET_RENDER_ENABLE_C MODE TRUE), as drivers leave it.
        engine.registers[SET_RENDER_ENABLE_C as usize / 4] = 1;
        // Viewports start unswizzled (SET_VIEWPORT_COORDINATE_SWIZZLE POS_X, POS_Y, POS_Z, POS_W), as drivers that
        // never write them expect.
        for j in 0..super::draw::VIEWPORTS {
            engine.registers[(super::draw::SET_VIEWPORT_COORDINATE_SWIZZLE + 32 * j) as usize / 4] =
                super::draw::IDENTITY_SWIZZLE;
        }
        engine
    }

    /// Whether this is Ampere's 3D class (`AMPERE_B`).
    pub(super) fn ampere(&self) -> bool {
        self.class == Class::Ampere3D
    }

    /// The method at `offset` of this engine's class, for errors.
    pub(super) fn method(&self, offset: u32) -> Method {
        Method { class: self.class, offset }
    }

    /// The value of the register at byte offset `offset`.
    pub fn register(&self, offset: u32) -> u32 {
        self.registers.get(offset as usize / 4).copied().unwrap_or(0)
    }

    /// Sets a register a method moves on by itself (LOAD_CONSTANT_BUFFER_OFFSET).
    pub(super) fn set_register(&mut self, offset: u32, value: u32) {
        if let Some(register) = self.registers.get_mut(offset as usize / 4) {
            *register = value;
        }
    }

    /// A method call from the pushbuffer: `offset` in bytes. `Some`: a report semaphore acquire not yet satisfied,
    /// which the channel waits for, calling the method again until it is.
    pub fn call(&mut self, offset: u32, argument: u32, context: &mut Context) -> Result<Option<Wait>, EngineError> {
        // AMPERE_B's macros are MME64 programs (Turing's macro engine: three-word instruction groups, open-gpu-doc's
        // MME tu104 notes), not the Maxwell ones `mme.rs` runs.
        if self.class == Class::Ampere3D
            && (offset >= CALL_MME_MACRO
                || (LOAD_MME_INSTRUCTION_RAM_POINTER..=LOAD_MME_START_ADDRESS_RAM).contains(&offset))
        {
            return Err(self.method(offset).unimplemented("AMPERE_B's macros (Turing's MME64 macro engine)"));
        }
        if offset >= CALL_MME_MACRO {
            let index = (offset - CALL_MME_MACRO) / 8 % 128;
            let is_data = (offset - CALL_MME_MACRO) / 4 % 2 == 1;
            match &mut self.pending_macro {
                Some(pending) if is_data && pending.index == index => pending.parameters.push(argument),
                // The hardware flags data with no call before it (ga100 pri_mme's HWW_ESR_EXTRA_MACRO_DATA).
                _ if is_data => {
                    let method = self.method(offset);
                    return Err(
                        method.bad_argument(argument, "macro data with no CALL_MME_MACRO of that macro before it")
                    );
                }
                _ => {
                    self.flush_macro(context)?;
                    self.pending_macro = Some(PendingMacro { index, parameters: vec![argument] });
                }
            }
            return Ok(None);
        }
        self.flush_macro(context)?;
        if let Some((method, request, address, payload)) = self.report_request(offset, argument)
            && request.operation == 1
            && !self.acquire_holds(method, request, address, payload, context)?
        {
            // The host's ACQUIRE (1) or ACQ_GEQ (4), which the channel polls the same way.
            let operation = if request.at_least { 4 } else { 1 };
            return Ok(Some(Wait::Semaphore { address, payload: payload as u32, operation }));
        }
        self.write(offset, argument, context).map(|()| None)
    }

    /// Runs the macro whose parameters have been collected, if any.
    pub fn flush_macro(&mut self, context: &mut Context) -> Result<(), EngineError> {
        let Some(pending) = self.pending_macro.take() else { return Ok(()) };
        let macros = std::mem::take(&mut self.macros);
        let result = macros.execute(pending.index, &pending.parameters, &mut MacroWrites { engine: self, context });
        self.macros = macros;
        result
    }

    /// Forgets a macro call whose parameters were being collected (its channel faulted).
    pub fn discard_pending_macro(&mut self) {
        self.pending_macro = None;
    }

    /// A method's effect, from the pushbuffer or from a macro's `send`.
    fn write(&mut self, offset: u32, argument: u32, context: &mut Context) -> Result<(), EngineError> {
        let method = self.method(offset);
        let index = offset as usize / 4;
        if index >= REGISTER_COUNT {
            return Err(method.bad_argument(argument, "method beyond the 3D class's method space"));
        }
        let shadowed = !(LOAD_MME_INSTRUCTION_RAM_POINTER..=SET_MME_SHADOW_RAM_CONTROL).contains(&offset);
        let argument = match self.register(SET_MME_SHADOW_RAM_CONTROL) & 3 {
            _ if !shadowed => argument,
            0 | 1 => {
                self.shadow[index] = argument;
                argument
            }
            2 => argument,
            _ => self.shadow[index],
        };
        self.registers[index] = argument;
        match offset {
            LOAD_MME_INSTRUCTION_RAM_POINTER => self.macros.set_code_pointer(argument),
            LOAD_MME_INSTRUCTION_RAM => self.macros.load_code(argument).map_err(|_| {
                method.bad_argument(argument, "the macro instruction RAM is full (pointer past its end)")
            })?,
            LOAD_MME_START_ADDRESS_RAM_POINTER => self.macros.set_start_pointer(argument),
            LOAD_MME_START_ADDRESS_RAM => self.macros.load_start(argument).map_err(|_| {
                method.bad_argument(argument, "the macro start address table is full (pointer past its end)")
            })?,
            // INDEX 11:0; the condition (20:20: stream-out or ROP writes done) holds at once here.
            INCREMENT_SYNC_POINT => {
                context
                    .syncpoints
                    .increment(argument & 0xfff)
                    .map_err(|_| method.bad_argument(argument, "no such syncpoint (the host1x has 192)"))?;
            }
            SET_REPORT_SEMAPHORE_D => self.report_semaphore(offset, argument, context)?,
            REPORT_SEMAPHORE_EXECUTE if self.ampere() => self.report_semaphore(offset, argument, context)?,
            // TYPE 4:0: ZPASS_PIXEL_CNT 1, STREAMING_PRIMITIVES_SUCCEEDED 0x10, _NEEDED 0x11,
            // DA_VERTICES_GENERATED 0x12, DA_PRIMITIVES_GENERATED 0x13, and the statistics' own.
            CLEAR_REPORT_VALUE => match argument & 0x1f {
                0x01 => self.draw.counters.samples_passed = 0,
                0x10 => self.draw.stream_out.primitives_succeeded = [0; STREAMS],
                0x11 => self.draw.stream_out.primitives_needed = [0; STREAMS],
                0x12 => self.draw.counters.vertices = 0,
                0x13 => self.draw.counters.primitives = 0,
                kind => match Statistic::ALL.into_iter().find(|statistic| statistic.fields().clear == kind) {
                    Some(statistic) => self.draw.counters.statistics[statistic as usize] = 0,
                    None => return Err(method.unimplemented(format!("clearing counter {kind:#x}"))),
                },
            },
            CLEAR_SURFACE => self.clear_surface(argument, context)?,
            _ if self.draw_method(offset, argument, context)? => {}
            _ if inline_to_memory::METHODS.contains(&offset) => {
                self.inline_to_memory.call(self.class, offset, argument, context)?
            }
            _ if is_unimplemented_action(self.class, offset) => return Err(method.unimplemented("")),
            _ => {}
        }
        Ok(())
    }

    /// Whether rendering is on (conditional rendering: `super::render_enabled`).
    pub(super) fn render_enabled(&self, method: Method, context: &Context) -> Result<bool, EngineError> {
        super::render_enabled(|offset| self.register(offset), method, context)
    }

    /// CLEAR_SURFACE: Z_ENABLE 0, STENCIL_ENABLE 1, R/G/B/A_ENABLE 2-5, MRT_SELECT 9:6 (a slot of SET_CT_SELECT),
    /// RT_ARRAY_INDEX 25:10.
    fn clear_surface(&mut self, argument: u32, context: &mut Context) -> Result<(), EngineError> {
        let method = self.method(CLEAR_SURFACE);
        if !self.render_enabled(method, context)? {
            return Ok(());
        }
        if self.register(super::raster::SET_WINDOW_CLIP_ENABLE) & 1 == 1 {
            // No source says whether the window clip rectangles cut clears.
            return Err(method.unimplemented("a clear under SET_WINDOW_CLIP_ENABLE"));
        }
        let layer = argument >> 10 & 0xffff;
        let block = self.sample_block(method)?;
        let mask = [2, 3, 4, 5].map(|bit| argument >> bit & 1 == 1);
        if mask.contains(&true) {
            self.clear_color(method, (argument >> 6 & 0xf, layer, block), mask, context)?;
        }
        if argument & 3 != 0 {
            self.clear_depth_stencil(method, (argument & 1 == 1, argument >> 1 & 1 == 1), (layer, block), context)?;
        }
        Ok(())
    }

    /// The texels a clear of `surface` covers: its pixels cut by the clear rectangle, scissor 0 and viewport 0's
    /// clip rectangle when SET_CLEAR_SURFACE_CONTROL asks (USE_CLEAR_RECT 4, USE_SCISSOR0 8, USE_VIEWPORT_CLIP0
    /// 12), each pixel the `(sx, sy)` block of texels its samples are in a multisampled target.
    fn clear_rect(&self, surface: &Surface, (sx, sy): (u32, u32)) -> Rect {
        let rect = self.clear_pixels(surface.width / sx, surface.height / sy);
        Rect { x0: rect.x0 * sx, y0: rect.y0 * sy, x1: rect.x1 * sx, y1: rect.y1 * sy }
    }

    fn clear_pixels(&self, width: u32, height: u32) -> Rect {
        let mut rect = Rect { x0: 0, y0: 0, x1: width, y1: height };
        let control = self.register(SET_CLEAR_SURFACE_CONTROL);
        let span = |register: u32| (register & 0xffff, register >> 16);
        if control >> 4 & 1 == 1 {
            let ((x0, x1), (y0, y1)) =
                (span(self.register(SET_CLEAR_RECT_HORIZONTAL)), span(self.register(SET_CLEAR_RECT_VERTICAL)));
            rect = rect.intersect(Rect { x0, y0, x1, y1 });
        }
        if control >> 8 & 1 == 1 && self.register(SET_SCISSOR_ENABLE) & 1 == 1 {
            let ((x0, x1), (y0, y1)) =
                (span(self.register(SET_SCISSOR_HORIZONTAL)), span(self.register(SET_SCISSOR_VERTICAL)));
            rect = rect.intersect(Rect { x0, y0, x1, y1 });
        }
        if control >> 12 & 1 == 1 {
            // X0 and WIDTH, Y0 and HEIGHT.
            let ((x, width), (y, height)) = (
                span(self.register(super::draw::SET_VIEWPORT_CLIP_HORIZONTAL)),
                span(self.register(super::draw::SET_VIEWPORT_CLIP_VERTICAL)),
            );
            rect = rect.intersect(Rect { x0: x, y0: y, x1: x + width, y1: y + height });
        }
        rect
    }

    pub(super) fn backend<'c>(
        method: Method,
        context: &'c mut Context,
    ) -> Result<(&'c mut (dyn crate::backend::Backend + 'static), GpuMemory<'c>), EngineError> {
        let memory = GpuMemory { guest: context.memory, mmu: context.mmu };
        let backend = context.backend.as_deref_mut().ok_or(EngineError::NoBackend { method })?;
        Ok((backend, memory))
    }

    /// A colour clear of the target in slot `slot` (MRT_SELECT), layer `layer`, `block` texels a pixel.
    fn clear_color(
        &mut self,
        method: Method,
        (slot, layer, block): (u32, u32, (u32, u32)),
        mask: [bool; 4],
        context: &mut Context,
    ) -> Result<(), EngineError> {
        if slot >= 8 {
            return Err(method.bad_argument(slot, "MRT_SELECT past the 8 slots of SET_CT_SELECT"));
        }
        let target = self.register(SET_CT_SELECT) >> (4 + 3 * slot) & 7;
        let Some((target_surface, format, first_layer)) = self.color_target(method, target)? else { return Ok(()) };
        let layer = target_layer(method, &target_surface, first_layer, layer)?;
        let rect = self.clear_rect(&target_surface, block);
        if rect.is_empty() {
            return Ok(());
        }
        let value = [0, 4, 8, 12].map(|at| self.register(SET_COLOR_CLEAR_VALUE + at));
        let clear = ColorClear { target: target_surface, format, rect, layer, mask, value };
        let (backend, memory) = Self::backend(method, context)?;
        backend.clear_color(&clear, &memory).map_err(|source| EngineError::Backend { method, source })
    }

    /// Colour target `target`'s surface, format and first layer (SET_COLOR_TARGET_*); `None` when its format is
    /// 0 (disabled). THIRD_DIMENSION counts its layers, or with MEMORY's THIRD_DIMENSION_CONTROL its depth slices
    /// (a 3D texture's level, rendered a slice at a time); LAYER is the layer (slice) that layer 0 of a draw or a
    /// clear's RT_ARRAY_INDEX 0 lands in, as NVK binds a view whose first layer is not the texture's.
    pub(super) fn color_target(
        &self,
        method: Method,
        target: u32,
    ) -> Result<Option<(Surface, ColorFormat, u32)>, EngineError> {
        let registers = |offset: u32| self.register(SET_COLOR_TARGET_A + COLOR_TARGET_STRIDE * target + offset);
        let format_code = registers(0x10);
        if format_code == 0 {
            return Ok(None);
        }
        let format = ColorFormat::from_code(format_code)
            .ok_or_else(|| method.unimplemented(format!("colour target format {format_code:#x}")))?;
        let memory = registers(0x14);
        let (width, height) = (registers(0x08), registers(0x0c));
        let depth_slices = memory >> 16 & 1 == 1;
        let (layout, width) = if memory >> 12 & 1 == 1 {
            // Pitch targets give their pitch in bytes as the width.
            (Layout::Pitch { pitch: width }, width / format.bytes)
        } else {
            if memory & 0xf != 0 {
                return Err(method.unimplemented(format!("colour target block width {}", memory & 0xf)));
            }
            (Layout::BlockLinear { block_height: memory >> 4 & 0xf, block_depth: memory >> 8 & 0xf }, width)
        };
        let surface = Surface {
            address: u64::from(registers(0x00) & 0xff) << 32 | u64::from(registers(0x04)),
            width,
            height,
            layers: (registers(0x18) & 0xfff_ffff).max(1),
            bytes_per_texel: format.bytes,
            layout,
            slices: match (depth_slices, layout) {
                (false, _) => Slices::Layers { stride: u64::from(registers(0x1c)) * 4 }, // ARRAY_PITCH: 4-byte units
                (true, Layout::BlockLinear { .. }) => Slices::Depth,
                (true, Layout::Pitch { .. }) => {
                    return Err(method.bad_argument(memory, "a pitch colour target with depth slices"));
                }
            },
        };
        Ok(Some((surface, format, registers(0x20) & 0xffff)))
    }

    /// The zeta (depth/stencil) target of SET_ZT_*, always block-linear, and its first layer (SET_ZT_LAYER, as
    /// a colour target's LAYER), when SET_ZT_SELECT selects one; `what` names the operation in the errors.
    pub(super) fn zeta_target(
        &self,
        method: Method,
        what: &str,
    ) -> Result<Option<(Surface, DepthFormat, u32)>, EngineError> {
        if self.register(SET_ZT_SELECT) & 1 == 0 {
            return Ok(None);
        }
        let code = self.register(SET_ZT_FORMAT) & 0x1f;
        let format = DepthFormat::from_code(code)
            .ok_or_else(|| method.unimplemented(format!("{what} of depth target format {code:#x}")))?;
        let block_size = self.register(SET_ZT_BLOCK_SIZE);
        if block_size & 0xf != 0 {
            return Err(method.unimplemented(format!("depth target block width {}", block_size & 0xf)));
        }
        let size_c = self.register(SET_ZT_SIZE_C);
        let target = Surface {
            address: u64::from(self.register(SET_ZT_A) & 0xff) << 32 | u64::from(self.register(SET_ZT_A + 4)),
            width: self.register(SET_ZT_SIZE_A) & 0xfff_ffff,
            height: self.register(SET_ZT_SIZE_B) & 0x1_ffff,
            // CONTROL (16) ARRAY_SIZE_IS_ONE, or THIRD_DIMENSION (15:0) layers.
            layers: match size_c >> 16 & 1 {
                1 => 1,
                _ => (size_c & 0xffff).max(1),
            },
            bytes_per_texel: format.bytes,
            layout: Layout::BlockLinear { block_height: block_size >> 4 & 0xf, block_depth: block_size >> 8 & 0xf },
            slices: Slices::Layers { stride: u64::from(self.register(SET_ZT_ARRAY_PITCH)) * 4 },
        };
        Ok(Some((target, format, self.register(SET_ZT_LAYER) & 0xffff)))
    }

    /// A depth and/or stencil clear of the zeta target, when one is selected. With RESPECT_STENCIL_MASK
    /// (SET_CLEAR_SURFACE_CONTROL 0) only SET_STENCIL_MASK's bits of stencil change.
    fn clear_depth_stencil(
        &mut self,
        method: Method,
        (depth, stencil): (bool, bool),
        (layer, block): (u32, (u32, u32)),
        context: &mut Context,
    ) -> Result<(), EngineError> {
        let Some((target, format, first_layer)) = self.zeta_target(method, "clears")? else { return Ok(()) };
        let layer = target_layer(method, &target, first_layer, layer)?;
        let rect = self.clear_rect(&target, block);
        if rect.is_empty() {
            return Ok(());
        }
        let stencil_mask = match stencil {
            false => 0,
            true if self.register(SET_CLEAR_SURFACE_CONTROL) & 1 == 1 => self.register(SET_STENCIL_MASK) as u8,
            true => 0xff,
        };
        let clear = DepthStencilClear {
            target,
            format,
            rect,
            layer,
            depth: depth.then(|| self.register(SET_Z_CLEAR_VALUE)),
            stencil: self.register(SET_STENCIL_CLEAR_VALUE) as u8,
            stencil_mask,
        };
        let (backend, memory) = Self::backend(method, context)?;
        backend.clear_depth_stencil(&clear, &memory).map_err(|source| EngineError::Backend { method, source })
    }

    /// A report semaphore method (SET_REPORT_SEMAPHORE_D, Ampere's REPORT_SEMAPHORE_EXECUTE) carried out.
    fn report_semaphore(&mut self, offset: u32, argument: u32, context: &mut Context) -> Result<(), EngineError> {
        let (method, request, address, payload) =
            self.report_request(offset, argument).expect("a report semaphore method");
        self.report(method, request, address, payload, context)
    }

    /// What the report semaphore method at `offset` asks for with `argument`, with its address and payload:
    /// SET_REPORT_SEMAPHORE_D's from A, B and C; Ampere's `REPORT_SEMAPHORE_EXECUTE`'s from the
    /// SET_REPORT_SEMAPHORE_ADDRESS and _PAYLOAD pairs before it (clc797.h). `None` for other methods.
    fn report_request(&self, offset: u32, argument: u32) -> Option<(Method, ReportRequest, u64, u64)> {
        let (request, address, payload) = match offset {
            SET_REPORT_SEMAPHORE_D => (
                ReportRequest::from_d(argument),
                u64::from(self.register(SET_REPORT_SEMAPHORE_A) & 0xff) << 32
                    | u64::from(self.register(SET_REPORT_SEMAPHORE_B)),
                u64::from(self.register(SET_REPORT_SEMAPHORE_C)),
            ),
            REPORT_SEMAPHORE_EXECUTE if self.ampere() => (
                ReportRequest::from_execute(argument),
                u64::from(self.register(SET_REPORT_SEMAPHORE_ADDRESS_UPPER) & 0xff) << 32
                    | u64::from(self.register(SET_REPORT_SEMAPHORE_ADDRESS_LOWER)),
                u64::from(self.register(SET_REPORT_SEMAPHORE_PAYLOAD_UPPER)) << 32
                    | u64::from(self.register(SET_REPORT_SEMAPHORE_PAYLOAD_LOWER)),
            ),
            _ => return None,
        };
        Some((self.method(offset), request, address, payload))
    }

    /// Whether a report semaphore ACQUIRE may go on: the word at its address equals its payload (COMPARISON EQ,
    /// as yuzu reads it, like the host's ACQUIRE), or with COMPARISON GE has reached it. GE's wrap-around is
    /// documented only for the host's ACQ_GEQ and syncpoints (the difference read as signed), and is taken from
    /// there.
    fn acquire_holds(
        &self,
        method: Method,
        request: ReportRequest,
        address: u64,
        payload: u64,
        context: &Context,
    ) -> Result<bool, EngineError> {
        if request.payload64 {
            return Err(method.unimplemented("a semaphore acquire of a 64-bit payload"));
        }
        let mut word = [0u8; 4];
        context.read(address, &mut word).map_err(|e| method.memory(e))?;
        let value = u32::from_le_bytes(word);
        Ok(if request.at_least { has_reached(value, payload as u32) } else { value == payload as u32 })
    }

    /// A report semaphore: a release writes the payload (with its timestamp as a four-word structure), a counter
    /// report the counter's value (the same), once the work before is done (it is, here).
    fn report(
        &mut self,
        method: Method,
        request: ReportRequest,
        address: u64,
        payload: u64,
        context: &mut Context,
    ) -> Result<(), EngineError> {
        let ReportRequest { operation, report, sub_report, size, reduction, payload64, high_word, .. } = request;
        let with_timestamp = |mut bytes: Vec<u8>| {
            if size == ReportSize::FourWords {
                bytes.resize(8, 0);
                bytes.extend_from_slice(&context.timestamp.to_le_bytes());
            }
            bytes
        };
        match operation {
            // RELEASE or REPORT_ONLY with REPORT NONE: the payload (NVK's timestamp queries are REPORT_ONLY of
            // NONE as four words, read at +8; yuzu writes the payload and the timestamp).
            0 | 2 if report == 0 => match (payload64, size) {
                (false, ReportSize::OneWord | ReportSize::FourWords) => {
                    let one_word = size == ReportSize::OneWord;
                    Release { address, payload: payload as u32, one_word, reduction }.write(context)
                }
                (true, ReportSize::TwoWords | ReportSize::FourWords) if reduction.is_none() => {
                    context.write(address, &with_timestamp(payload.to_le_bytes().to_vec()))
                }
                (true, _) if reduction.is_some() => return Err(method.unimplemented("a 64-bit reduction")),
                _ => {
                    return Err(
                        method.unimplemented(format!("a release of a {size:?} structure (payload64 {payload64})"))
                    );
                }
            }
            .map_err(|e| method.memory(e)),
            // A counter: its value (its low word alone with ONE_WORD), then the timestamp. SUB_REPORT names the
            // vertex stream of the stream output counters and of VTG_PRIMITIVES_OUT, and the buffer whose write
            // pointer STREAMING_BYTE_COUNT gives.
            0 | 2 if high_word => {
                Err(method.unimplemented("REPORT_DWORD_NUMBER 1 (which word of a counter a one-word report then holds is documented nowhere; no driver we know sets it)"))
            }
            0 | 2 => {
                let (counters, stream_out) = (&self.draw.counters, &self.draw.stream_out);
                let stream = sub_report as usize;
                let of_stream = |counts: &[u64; STREAMS]| {
                    counts.get(stream).copied().ok_or_else(|| method.bad_argument(sub_report, "a vertex stream past 3"))
                };
                let needed_minus_succeeded = |stream: usize| {
                    stream_out.primitives_needed[stream].wrapping_sub(stream_out.primitives_succeeded[stream])
                };
                let value = match report {
                    REPORT_ZPASS_PIXEL_CNT | REPORT_ZPASS_PIXEL_CNT64 => counters.samples_passed,
                    REPORT_DA_VERTICES_GENERATED => counters.vertices,
                    REPORT_DA_PRIMITIVES_GENERATED => counters.primitives,
                    REPORT_STREAMING_PRIMITIVES_SUCCEEDED => of_stream(&stream_out.primitives_succeeded)?,
                    REPORT_STREAMING_PRIMITIVES_NEEDED => of_stream(&stream_out.primitives_needed)?,
                    REPORT_STREAMING_PRIMITIVES_NEEDED_MINUS_SUCCEEDED => {
                        of_stream(&[0, 1, 2, 3].map(needed_minus_succeeded))?
                    }
                    REPORT_TOTAL_STREAMING_PRIMITIVES_NEEDED_MINUS_SUCCEEDED => {
                        (0..STREAMS).map(needed_minus_succeeded).fold(0, u64::wrapping_add)
                    }
                    REPORT_STREAMING_BYTE_COUNT if size != ReportSize::FourWords => {
                        let pointer = stream_out.write_pointers.get(sub_report as usize).copied().ok_or_else(|| {
                            method.bad_argument(sub_report, "STREAMING_BYTE_COUNT of a stream output buffer past 3")
                        })?;
                        u64::from(pointer)
                    }
                    REPORT_STREAMING_BYTE_COUNT => {
                        return Err(method.unimplemented(
                            "STREAMING_BYTE_COUNT as a four-word report (what its first words hold is documented \
                             nowhere; NVK asks for one word)",
                        ));
                    }
                    _ => match Statistic::ALL.into_iter().find(|statistic| statistic.fields().report == report) {
                        // Stream 0's (a draw that counts it emits on no other: `ReferenceBackend::draw`).
                        Some(Statistic::PrimitivesOut) => {
                            let count = counters.statistics[Statistic::PrimitivesOut as usize];
                            of_stream(&[count, 0, 0, 0])?
                        }
                        Some(statistic) => counters.statistics[statistic as usize],
                        None => return Err(method.unimplemented(format!("report {report:#x} (this counter)"))),
                    },
                };
                let mut bytes = value.to_le_bytes().to_vec();
                if size == ReportSize::OneWord {
                    bytes.truncate(4);
                }
                context.write(address, &with_timestamp(bytes)).map_err(|e| method.memory(e))
            }
            // An acquire from the pushbuffer waits in `call` until it holds; one a macro sends cannot wait (the
            // macro would have to stop halfway).
            1 if self.acquire_holds(method, request, address, payload, context)? => Ok(()),
            1 => Err(method.unimplemented("a semaphore acquire that has to wait, sent by a macro")),
            _ => Err(method.unimplemented("semaphore trap")),
        }
    }
}

/// What a report semaphore does, read from `SET_REPORT_SEMAPHORE_D` or Ampere's `REPORT_SEMAPHORE_EXECUTE`
/// (which hold the same fields in other places).
#[derive(Clone, Copy, Debug)]
struct ReportRequest {
    /// OPERATION: 0 RELEASE, 1 ACQUIRE, 2 REPORT_ONLY, 3 TRAP.
    operation: u32,
    /// REPORT: the counter (0 NONE: the payload).
    report: u32,
    sub_report: u32,
    size: ReportSize,
    reduction: Option<Reduction>,
    /// PAYLOAD_SIZE64 (Ampere): the payload's 64 bits rather than its low word.
    payload64: bool,
    /// COMPARISON GE (B197): an acquire waits until the word has reached the payload, not until it equals it.
    at_least: bool,
    /// REPORT_DWORD_NUMBER (B197): which word of a counter a one-word report holds; 1 is refused.
    high_word: bool,
}

/// STRUCTURE_SIZE: the value and a timestamp (16 bytes), the value's low word, or (Ampere) the value's 64 bits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ReportSize {
    FourWords,
    OneWord,
    TwoWords,
}

impl ReportRequest {
    /// `SET_REPORT_SEMAPHORE_D`: OPERATION 1:0, REDUCTION_ENABLE 3, SUB_REPORT 7:5, REDUCTION_OP 11:9,
    /// COMPARISON 16, REDUCTION_FORMAT 18:17, REPORT_DWORD_NUMBER 21, REPORT 27:23, STRUCTURE_SIZE 28 (clb197.h).
    fn from_d(argument: u32) -> ReportRequest {
        ReportRequest {
            operation: argument & 3,
            report: argument >> 23 & 0x1f,
            sub_report: argument >> 5 & 7,
            size: if argument >> 28 & 1 == 1 { ReportSize::OneWord } else { ReportSize::FourWords },
            reduction: report_reduction(argument),
            payload64: false,
            at_least: argument >> 16 & 1 == 1,
            high_word: argument >> 21 & 1 == 1,
        }
    }

    /// `REPORT_SEMAPHORE_EXECUTE`: OPERATION 1:0, REPORT 11:7, STRUCTURE_SIZE 14:13, SUB_REPORT 17:15,
    /// REDUCTION_ENABLE 20, REDUCTION_OP 23:21, REDUCTION_FORMAT 25:24, PAYLOAD_SIZE64 27 (clc797.h).
    fn from_execute(argument: u32) -> ReportRequest {
        ReportRequest {
            operation: argument & 3,
            report: argument >> 7 & 0x1f,
            sub_report: argument >> 15 & 7,
            size: match argument >> 13 & 3 {
                0 => ReportSize::FourWords,
                1 => ReportSize::OneWord,
                _ => ReportSize::TwoWords,
            },
            reduction: (argument >> 20 & 1 == 1)
                .then(|| Reduction { op: ReductionOp::from_bits(argument >> 21), signed: argument >> 24 & 3 == 1 }),
            payload64: argument >> 27 & 1 == 1,
            at_least: false,
            high_word: false,
        }
    }
}

/// The layer (or depth slice) of `surface` that `layer` of an operation lands in, counted from the target's
/// `first_layer`; a layer past the surface's is an error.
pub(super) fn target_layer(
    method: Method,
    surface: &Surface,
    first_layer: u32,
    layer: u32,
) -> Result<u32, EngineError> {
    first_layer.checked_add(layer).filter(|&absolute| absolute < surface.layers).ok_or_else(|| {
        method.bad_argument(layer, "a layer past the target's last (THIRD_DIMENSION), counted from its first (LAYER)")
    })
}

/// The 3D engine as a running macro sees it: `Read` reads registers, `send` calls methods.
struct MacroWrites<'e, 'c, 'm> {
    engine: &'e mut Maxwell3D,
    context: &'c mut Context<'m>,
}

impl MacroTarget for MacroWrites<'_, '_, '_> {
    /// `Read` sees the shadow RAM, not the registers (they differ after passthrough and replay writes).
    fn read(&self, method: u32) -> u32 {
        self.engine.shadow.get(method as usize).copied().unwrap_or(0)
    }

    fn send(&mut self, method: u32, argument: u32) -> Result<(), EngineError> {
        let offset = method * 4;
        if offset >= CALL_MME_MACRO {
            return Err(self.engine.method(offset).unimplemented("a macro calling a macro"));
        }
        self.engine.write(offset, argument, self.context)
    }
}
