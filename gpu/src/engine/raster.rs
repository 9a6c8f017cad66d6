//! How the 3D engine's rasteriser state reads from its registers: which faces are culled and in which polygon
//! mode the others are drawn, lines and their stipple, the polygon stipple, conservative rasterisation, user clip
//! planes, window clip rectangles and the pixel program's sample mask. Facts from open-gpu-doc clb197.h and clc797.h; where the class
//! headers name a field only, as NVK and nouveau program it.

use super::draw::{
    Cull, OGL_SET_CULL, OGL_SET_CULL_FACE, PIPELINE_STRIDE, SET_ALIASED_LINE_WIDTH_ENABLE,
    SET_ALIASED_LINE_WIDTH_FLOAT, SET_ANTI_ALIASED_LINE, SET_BACK_POLYGON_MODE, SET_FRONT_POLYGON_MODE,
    SET_LINE_WIDTH_FLOAT, SET_PIPELINE_SHADER, SET_WINDOW_ORIGIN, Topology,
};
use super::maxwell_3d::Maxwell3D;
use super::multisample::SET_ANTI_ALIAS_ENABLE;
use super::{EngineError, Method};
use crate::shader::{UserClip, WindowClip};

pub const SET_LINE_STIPPLE: u32 = 0x166c;
pub const SET_LINE_STIPPLE_PARAMETERS: u32 = 0x1680;
/// Anti-aliased polygons (ENABLE 0:0): not drawn.
pub const SET_POLY_SMOOTH: u32 = 0x0db4;
/// Anti-aliased (round) points (ENABLE 0:0).
pub const SET_ANTI_ALIASED_POINT: u32 = 0x1658;

/// Fixed-function state the reference does not draw, by its ENABLE bit (0:0; NVN, deko3d and NVK leave them off):
/// a draw that finds one on stops naming it. (SET_TWO_SIDED_LIGHT, which nouveau's GL driver turns on for GL's
/// two-sided colours, is not here: it picks the back colours a pixel program's legacy colour inputs read, and a
/// program that reads them is refused whatever it picks: `shader::unprovided_input`.)
const UNDRAWN: [(u32, &str); 5] = [
    (SET_POLY_SMOOTH, "anti-aliased polygons (SET_POLY_SMOOTH)"),
    (0x0f40, "constant colour rendering (SET_CONSTANT_COLOR_RENDERING)"),
    (0x11f8, "the coverage written to a colour target (SET_COVERAGE_TO_COLOR)"),
    (0x0dd0, "iterated blending (SET_ITERATED_BLEND)"),
    (0x161c, "the vertex id copied into an attribute (SET_VERTEX_ID_COPY)"),
];
pub const SET_POLYGON_STIPPLE: u32 = 0x168c;
pub const SET_POLYGON_STIPPLE_PATTERN: u32 = 0x1700;
pub const SET_CONSERVATIVE_RASTER: u32 = 0x1148;
/// Ampere (C797): EXTRA_PRIM_BLOAT 3:0, COPY_INNER_TO_OUTER 4:4.
pub const SET_CONSERVATIVE_RASTER_CONTROL: u32 = 0x0230;
pub const SET_USER_CLIP_ENABLE: u32 = 0x1510;
pub const SET_USER_CLIP_OP: u32 = 0x1940;
pub const SET_PS_OUTPUT_SAMPLE_MASK_USAGE: u32 = 0x0300;
/// Rectangle j's XMIN 15:0 and XMAX 31:16 (8 bytes apart), and its YMIN and YMAX at +4.
pub const SET_WINDOW_CLIP_HORIZONTAL: u32 = 0x0d00;
pub const SET_WINDOW_CLIP_VERTICAL: u32 = 0x0d04;
pub const SET_WINDOW_CLIP_ENABLE: u32 = 0x194c;
/// INCLUSIVE 0, EXCLUSIVE 1, CLIPALL 2.
pub const SET_WINDOW_CLIP_TYPE: u32 = 0x1950;

/// How the rasteriser draws triangles (SET_FRONT_POLYGON_MODE, SET_BACK_POLYGON_MODE: OpenGL's POINT 0x1b00,
/// LINE 0x1b01, FILL 0x1b02): filled, their edges as lines, or their vertices as points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolygonMode {
    Point,
    Line,
    Fill,
}

/// How lines are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lines {
    /// Aliased lines (OpenGL's, "Wide Lines"): `width` pixels in each column of an x-major line (each row of a
    /// y-major one), the width rounded to the nearest integer and at least 1.
    Aliased { width: u32 },
    /// Anti-aliased lines (SET_ANTI_ALIASED_LINE): rectangles `width` wide, each pixel's coverage in its alpha.
    Smooth { width: f32 },
}

/// Stippled lines (SET_LINE_STIPPLE, SET_LINE_STIPPLE_PARAMETERS: FACTOR 7:0 holds the factor less one, as NVK
/// and nouveau write it; PATTERN 23:8), OpenGL's: the line's s-th pixel is drawn when bit (s / factor) mod 16 of
/// the pattern is set, s counting from each independent line's start and on through a strip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineStipple {
    pub factor: u32,
    pub pattern: u16,
}

impl Maxwell3D {
    /// Stops a draw that finds any of the fixed-function state the reference does not draw (`UNDRAWN`) on.
    pub(super) fn refuse_undrawn_state(&self, at: Method) -> Result<(), EngineError> {
        match UNDRAWN.iter().find(|&&(method, _)| self.register(method) & 1 == 1) {
            Some(&(_, what)) => Err(at.unimplemented(what)),
            None => Ok(()),
        }
    }

    /// SET_POLYGON_STIPPLE and its pattern. The rows count from the targets' first, as nouveau, which turns
    /// OpenGL's bottom-up rows over itself, programs them; whether FLIP_Y turns them over too is documented
    /// nowhere, so a stippled draw under it stops naming it.
    pub(super) fn polygon_stipple(&self, at: Method) -> Result<Option<[u32; 32]>, EngineError> {
        if self.register(SET_POLYGON_STIPPLE) & 1 == 0 {
            return Ok(None);
        }
        if self.register(SET_WINDOW_ORIGIN) >> 4 & 1 == 1 {
            return Err(at.unimplemented("the polygon stipple with SET_WINDOW_ORIGIN's FLIP_Y"));
        }
        Ok(Some(std::array::from_fn(|row| self.register(SET_POLYGON_STIPPLE_PATTERN + 4 * row as u32))))
    }

    /// The window clip rectangles, when SET_WINDOW_CLIP_ENABLE is on. The eight rectangles' maxima are exclusive,
    /// as Mesa's nouveau programs GL_EXT_window_rectangles (a gallium scissor's maxx and maxy, unused rectangles
    /// zeros: empty), in the pixels scissors count.
    pub(super) fn window_clip(&self, at: Method) -> Result<Option<WindowClip>, EngineError> {
        if self.register(SET_WINDOW_CLIP_ENABLE) & 1 == 0 {
            return Ok(None);
        }
        let rects = std::array::from_fn(|j| {
            let [horizontal, vertical] = [SET_WINDOW_CLIP_HORIZONTAL, SET_WINDOW_CLIP_VERTICAL]
                .map(|method| self.register(method + 8 * j as u32));
            [horizontal, vertical, horizontal >> 16, vertical >> 16].map(|half| half as u16)
        });
        Ok(Some(match self.register(SET_WINDOW_CLIP_TYPE) & 3 {
            0 => WindowClip { exclusive: false, rects },
            1 => WindowClip { exclusive: true, rects },
            2 => WindowClip { exclusive: false, rects: [[0; 4]; 8] },
            kind => return Err(at.bad_argument(kind, "SET_WINDOW_CLIP_TYPE is not INCLUSIVE, EXCLUSIVE or CLIPALL")),
        }))
    }

    /// SET_CONSERVATIVE_RASTER, and on Ampere SET_CONSERVATIVE_RASTER_CONTROL: EXTRA_PRIM_BLOAT 3:0 grows
    /// triangles by 0, 0.25, 0.5 or 0.75 pixels more (BLOAT_PRI and COPY_INNER_TO_OUTER, 4:4, are documented by
    /// their names only: they stop naming themselves).
    pub(super) fn conservative(&self, at: Method) -> Result<Option<f32>, EngineError> {
        if self.register(SET_CONSERVATIVE_RASTER) & 1 == 0 {
            return Ok(None);
        }
        let control = if self.ampere() { self.register(SET_CONSERVATIVE_RASTER_CONTROL) } else { 0 };
        match (control & 0xf, control >> 4 & 1) {
            (bloat @ 0..=3, 0) => Ok(Some(bloat as f32 * 0.25)),
            _ => Err(at.unimplemented(format!("SET_CONSERVATIVE_RASTER_CONTROL {control:#x}"))),
        }
    }

    /// OGL_SET_CULL and OGL_SET_CULL_FACE.
    pub(super) fn cull(&self, at: Method) -> Result<Cull, EngineError> {
        Ok(match (self.register(OGL_SET_CULL) & 1, self.register(OGL_SET_CULL_FACE)) {
            (0, _) => Cull::None,
            (_, 0x404) => Cull::Front,
            (_, 0x405) => Cull::Back,
            (_, 0x408) => Cull::Both,
            (_, face) => return Err(at.bad_argument(face, "OGL_SET_CULL_FACE is not FRONT, BACK or FRONT_AND_BACK")),
        })
    }

    /// The polygon mode of the faces culling leaves: front faces take SET_FRONT_POLYGON_MODE, back faces
    /// SET_BACK_POLYGON_MODE (0, the reset value, is FILL). The host has one mode for both, so where both kinds
    /// of face are drawn the two must agree. Quads, quad strips and polygons are drawn as triangles, whose inner
    /// edges and shared corners the other modes would show: they are drawn filled only. Points and lines have no
    /// faces: their draws take FILL, whatever the modes say.
    pub(super) fn polygon_mode(&self, at: Method, topology: Topology, cull: Cull) -> Result<PolygonMode, EngineError> {
        let mode = |register: u32| match self.register(register) {
            0 | 0x1b02 => Ok(PolygonMode::Fill),
            0x1b01 => Ok(PolygonMode::Line),
            0x1b00 => Ok(PolygonMode::Point),
            other => Err(at.bad_argument(other, "a polygon mode that is not POINT, LINE or FILL")),
        };
        // Points and lines that no program turns into triangles have no faces.
        let reshaped =
            self.register(SET_PIPELINE_SHADER + PIPELINE_STRIDE * 4) & 1 == 1 || topology == Topology::Patches;
        let unfaced = matches!(
            topology,
            Topology::Points
                | Topology::Lines
                | Topology::LineLoop
                | Topology::LineStrip
                | Topology::LinesAdjacency
                | Topology::LineStripAdjacency
        );
        if unfaced && !reshaped {
            return Ok(PolygonMode::Fill);
        }
        let (front, back) = (mode(SET_FRONT_POLYGON_MODE)?, mode(SET_BACK_POLYGON_MODE)?);
        let drawn = match cull {
            Cull::Both => PolygonMode::Fill,
            Cull::Back => front,
            Cull::Front => back,
            Cull::None if front == back => front,
            Cull::None => {
                return Err(at.unimplemented(format!(
                    "front faces drawn as {front:?} and back faces as {back:?} in one draw (the host has one \
                     polygon mode)"
                )));
            }
        };
        if drawn != PolygonMode::Fill && matches!(topology, Topology::Quads | Topology::QuadStrip | Topology::Polygon) {
            return Err(at.unimplemented(format!(
                "{topology:?} in polygon mode {drawn:?} (the reference back end draws them as triangles)"
            )));
        }
        Ok(drawn)
    }

    /// The line width and mode: anti-aliased lines (SET_ANTI_ALIASED_LINE) take SET_LINE_WIDTH_FLOAT; aliased ones
    /// SET_ALIASED_LINE_WIDTH_FLOAT when SET_ALIASED_LINE_WIDTH_ENABLE says so (NVK and nouveau turn it on and
    /// write each width to its register), else SET_LINE_WIDTH_FLOAT as well.
    pub(super) fn lines(&self, at: Method) -> Result<Lines, EngineError> {
        let smooth = self.register(SET_ANTI_ALIASED_LINE) & 1 == 1;
        let register = if !smooth && self.register(SET_ALIASED_LINE_WIDTH_ENABLE) & 1 == 1 {
            SET_ALIASED_LINE_WIDTH_FLOAT
        } else {
            SET_LINE_WIDTH_FLOAT
        };
        let width = self.float(register);
        if !(width >= 0.0 && width.is_finite()) {
            return Err(at.bad_argument(self.register(register), "a negative, infinite or NaN line width"));
        }
        Ok(if smooth {
            Lines::Smooth { width: width.max(1.0) }
        } else {
            Lines::Aliased { width: (width.round() as u32).max(1) }
        })
    }

    /// SET_PS_OUTPUT_SAMPLE_MASK_USAGE: ENABLE 0:0, and with QUALIFY_BY_ANTI_ALIAS_ENABLE 1:1 only while
    /// SET_ANTI_ALIAS_ENABLE is on.
    pub(super) fn ps_sample_mask(&self) -> bool {
        let usage = self.register(SET_PS_OUTPUT_SAMPLE_MASK_USAGE);
        usage & 1 == 1 && (usage >> 1 & 1 == 0 || self.register(SET_ANTI_ALIAS_ENABLE) & 1 == 1)
    }

    /// SET_USER_CLIP_ENABLE's planes, each a clip or (SET_USER_CLIP_OP's bit 4i) a cull plane.
    pub(super) fn user_clip(&self) -> UserClip {
        let (planes, ops) = (self.register(SET_USER_CLIP_ENABLE) & 0xff, self.register(SET_USER_CLIP_OP));
        let cull = (0..8).filter(|plane| ops >> (4 * plane) & 1 == 1).fold(0, |mask, plane| mask | 1 << plane);
        UserClip { clip: (planes & !cull) as u8, cull: (planes & cull) as u8 }
    }

    /// SET_LINE_STIPPLE and SET_LINE_STIPPLE_PARAMETERS.
    pub(super) fn line_stipple(&self) -> Option<LineStipple> {
        (self.register(SET_LINE_STIPPLE) & 1 == 1).then(|| {
            let parameters = self.register(SET_LINE_STIPPLE_PARAMETERS);
            LineStipple { factor: (parameters & 0xff) + 1, pattern: (parameters >> 8) as u16 }
        })
    }
}
