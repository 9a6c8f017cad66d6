//! The window `tandem run` shows frames in (SDL3), opened when the program shows its first frame, so that programs
//! that never draw open none. Each frame is letterboxed into the window at its own aspect ratio.
//!
//! Pacing: guest time runs as fast as the CPU path can run it; a frame is shown no earlier than its guest time
//! after the first frame, so a program paced by the vertical blank plays at its own speed (and a slow run simply
//! shows frames late). Closing the window ends the run between instructions (`RunOutcome::Interrupted`).
//!
//! Where no window can open (no display, SDL's video drivers all fail), the run goes on headless with a warning.
//!
//! The keyboard is the controller (physical keys, whatever the layout): arrows the D-pad, X/Z/C/V the A/B/X/Y
//! buttons, Q/E L and R, 1/3 ZL and ZR, Enter plus, Backspace minus, W/A/S/D the left stick, I/J/K/L the right
//! stick, F/H the sticks' clicks. Keys are read when a frame is shown.

use sdl3::event::Event;
use sdl3::keyboard::Scancode;
use sdl3::pixels::PixelFormat;
use sdl3::render::{Texture, WindowCanvas};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tandem_hle::service::hid::InputState;
use tandem_hle::service::vi::display::{FrameSink, ShownFrame};

/// Counter ticks a second (the guest's 19.2 MHz system counter).
const TICKS_PER_SECOND: f64 = 19_200_000.0;

struct Open {
    // SDL stays initialised while the window is open.
    _sdl: sdl3::Sdl,
    _video: sdl3::VideoSubsystem,
    canvas: WindowCanvas,
    events: sdl3::EventPump,
    texture: Texture,
    size: (u32, u32),
    /// SDL's video driver ("x11", "wayland", "offscreen"...).
    driver: String,
    /// Wall time and guest ticks of the first frame: later frames wait for their guest time.
    start: (Instant, u64),
}

enum State {
    NotYet,
    Open(Box<Open>),
    /// The window could not open (said once); frames are dropped.
    Failed,
}

/// The window: a frame sink for the display, the controller the keyboard makes, and what happens once the run
/// is over.
pub struct Window {
    state: Rc<RefCell<State>>,
    closed: Arc<AtomicBool>,
    input: Rc<Cell<InputState>>,
}

impl Window {
    /// `closed` is set when the person closes the window.
    pub fn new(closed: Arc<AtomicBool>) -> Window {
        Window { state: Rc::new(RefCell::new(State::NotYet)), closed, input: Rc::default() }
    }

    /// What the keyboard's controller reports now.
    pub fn input(&self) -> Rc<Cell<InputState>> {
        self.input.clone()
    }

    /// The display's frame sink: opens the window titled `title` at the first frame.
    pub fn frame_sink(&self, title: String) -> FrameSink {
        let state = self.state.clone();
        let closed = self.closed.clone();
        let input = self.input.clone();
        Box::new(move |shown: &ShownFrame| {
            let mut state = state.borrow_mut();
            if let State::NotYet = *state {
                *state = match open(&title, shown) {
                    Ok(open) => State::Open(Box::new(open)),
                    Err(error) => {
                        tracing::warn!(
                            "no window could open ({error:#}); the run goes on without one: add --headless to say \
                             so, and --frames DIR to keep the frames"
                        );
                        State::Failed
                    }
                };
            }
            let State::Open(open) = &mut *state else { return };
            if let Err(error) = show(open, shown, &closed, &input) {
                tracing::error!("showing frame {}: {error:#}", shown.number);
            }
        })
    }

    /// After the program has exited: a window someone can see stays open on the last frame until it is closed.
    /// (SDL's offscreen and dummy drivers, as in the tests, have no one to close it.)
    pub fn linger(&self) {
        let mut state = self.state.borrow_mut();
        let State::Open(open) = &mut *state else { return };
        if self.closed.load(Ordering::Relaxed) || matches!(open.driver.as_str(), "offscreen" | "dummy") {
            return;
        }
        eprintln!("the program has ended; close the window to quit");
        loop {
            match open.events.wait_event_timeout(Duration::from_millis(250)) {
                Some(Event::Quit { .. }) => return,
                // Redraw whatever a resize or an exposure left.
                Some(_) => {
                    open.canvas.clear();
                    let _ = open.canvas.copy(&open.texture, None, None);
                    open.canvas.present();
                }
                None => {}
            }
        }
    }
}

fn open(title: &str, shown: &ShownFrame) -> anyhow::Result<Open> {
    let sdl = sdl3::init()?;
    let video = sdl.video()?;
    let (width, height) = (shown.frame.width, shown.frame.height);
    let window = video.window(title, width.max(1), height.max(1)).resizable().build()?;
    let driver = video.current_video_driver().to_string();
    tracing::info!(driver, width, height, "window open");
    let canvas = window.into_canvas();
    let texture =
        canvas.texture_creator().create_texture_streaming(PixelFormat::RGBA32, width.max(1), height.max(1))?;
    let events = sdl.event_pump()?;
    Ok(Open {
        _sdl: sdl,
        _video: video,
        canvas,
        events,
        texture,
        size: (width, height),
        driver,
        start: (Instant::now(), shown.ticks),
    })
}

fn show(open: &mut Open, shown: &ShownFrame, closed: &AtomicBool, input: &Cell<InputState>) -> anyhow::Result<()> {
    let frame = shown.frame;
    if (frame.width, frame.height) != open.size {
        open.texture =
            open.canvas.texture_creator().create_texture_streaming(PixelFormat::RGBA32, frame.width, frame.height)?;
        open.size = (frame.width, frame.height);
    }
    let due = Duration::from_secs_f64(shown.ticks.saturating_sub(open.start.1) as f64 / TICKS_PER_SECOND);
    if let Some(wait) = due.checked_sub(open.start.0.elapsed()) {
        std::thread::sleep(wait);
    }
    open.texture.update(None, &frame.rgba, frame.width as usize * 4)?;
    open.canvas.set_logical_size(frame.width, frame.height, sdl3::sys::render::SDL_LOGICAL_PRESENTATION_LETTERBOX)?;
    open.canvas.clear();
    open.canvas.copy(&open.texture, None, None)?;
    open.canvas.present();
    let mut state = input.get();
    for event in open.events.poll_iter() {
        match event {
            Event::Quit { .. } => closed.store(true, Ordering::Relaxed),
            Event::KeyDown { scancode: Some(key), repeat: false, .. } => press(&mut state, key, true),
            Event::KeyUp { scancode: Some(key), .. } => press(&mut state, key, false),
            _ => {}
        }
    }
    input.set(state);
    Ok(())
}

/// `HidNpadButton` bits.
mod button {
    pub const A: u64 = 1 << 0;
    pub const B: u64 = 1 << 1;
    pub const X: u64 = 1 << 2;
    pub const Y: u64 = 1 << 3;
    pub const STICK_L: u64 = 1 << 4;
    pub const STICK_R: u64 = 1 << 5;
    pub const L: u64 = 1 << 6;
    pub const R: u64 = 1 << 7;
    pub const ZL: u64 = 1 << 8;
    pub const ZR: u64 = 1 << 9;
    pub const PLUS: u64 = 1 << 10;
    pub const MINUS: u64 = 1 << 11;
    pub const LEFT: u64 = 1 << 12;
    pub const UP: u64 = 1 << 13;
    pub const RIGHT: u64 = 1 << 14;
    pub const DOWN: u64 = 1 << 15;
}

/// A stick pushed all the way (libnx's JOYSTICK_MAX).
const STICK_MAX: i32 = 0x7fff;

/// A key going down or up, on the controller the keyboard makes.
fn press(state: &mut InputState, key: Scancode, down: bool) {
    let set = |buttons: &mut u64, bit: u64| if down { *buttons |= bit } else { *buttons &= !bit };
    let push = |axis: &mut i32, toward: i32| {
        if down {
            *axis = toward;
        } else if *axis == toward {
            *axis = 0;
        }
    };
    match key {
        Scancode::X => set(&mut state.buttons, button::A),
        Scancode::Z => set(&mut state.buttons, button::B),
        Scancode::C => set(&mut state.buttons, button::X),
        Scancode::V => set(&mut state.buttons, button::Y),
        Scancode::F => set(&mut state.buttons, button::STICK_L),
        Scancode::H => set(&mut state.buttons, button::STICK_R),
        Scancode::Q => set(&mut state.buttons, button::L),
        Scancode::E => set(&mut state.buttons, button::R),
        Scancode::_1 => set(&mut state.buttons, button::ZL),
        Scancode::_3 => set(&mut state.buttons, button::ZR),
        Scancode::Return => set(&mut state.buttons, button::PLUS),
        Scancode::Backspace => set(&mut state.buttons, button::MINUS),
        Scancode::Left => set(&mut state.buttons, button::LEFT),
        Scancode::Up => set(&mut state.buttons, button::UP),
        Scancode::Right => set(&mut state.buttons, button::RIGHT),
        Scancode::Down => set(&mut state.buttons, button::DOWN),
        Scancode::A => push(&mut state.stick_l.0, -STICK_MAX),
        Scancode::D => push(&mut state.stick_l.0, STICK_MAX),
        Scancode::W => push(&mut state.stick_l.1, STICK_MAX),
        Scancode::S => push(&mut state.stick_l.1, -STICK_MAX),
        Scancode::J => push(&mut state.stick_r.0, -STICK_MAX),
        Scancode::L => push(&mut state.stick_r.0, STICK_MAX),
        Scancode::I => push(&mut state.stick_r.1, STICK_MAX),
        Scancode::K => push(&mut state.stick_r.1, -STICK_MAX),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys hold their buttons while down; a stick follows the last of its two opposite keys pressed, and lets go
    /// only when the key holding it does.
    #[test]
    fn keys_make_a_controller() {
        let mut state = InputState::default();
        press(&mut state, Scancode::X, true);
        press(&mut state, Scancode::Up, true);
        assert_eq!(state.buttons, button::A | button::UP);
        press(&mut state, Scancode::X, false);
        assert_eq!(state.buttons, button::UP);
        press(&mut state, Scancode::A, true);
        assert_eq!(state.stick_l, (-STICK_MAX, 0));
        press(&mut state, Scancode::D, true);
        assert_eq!(state.stick_l, (STICK_MAX, 0));
        press(&mut state, Scancode::A, false);
        assert_eq!(state.stick_l, (STICK_MAX, 0), "D still holds the stick");
        press(&mut state, Scancode::D, false);
        press(&mut state, Scancode::I, true);
        assert_eq!((state.stick_l, state.stick_r), ((0, 0), (0, STICK_MAX)));
    }
}
