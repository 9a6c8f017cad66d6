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
//! stick, F/H the sticks' clicks. Gamepads the host has (SDL's mappings) join it, by button position: east A,
//! south B, north X, west Y, as on Nintendo's controllers. Input is read when a frame is shown.

use sdl3::event::Event;
use sdl3::gamepad::{Axis, Button, Gamepad};
use sdl3::keyboard::Scancode;
use sdl3::mouse::MouseButton;
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
    /// `None` where SDL's gamepad support could not start (the keyboard still works).
    gamepad_subsystem: Option<sdl3::GamepadSubsystem>,
    /// Open gamepads (SDL sends their events while they are open).
    gamepads: Vec<Gamepad>,
    /// What the keyboard and the gamepads report, each on its own.
    keyboard: InputState,
    gamepad: InputState,
    /// The mouse, held down on the picture: a finger on the touch screen.
    touch: Option<(u32, u32)>,
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
    let gamepad_subsystem = sdl
        .gamepad()
        .inspect_err(|error| tracing::warn!("no gamepads: SDL's gamepad support did not start ({error})"))
        .ok();
    Ok(Open {
        _sdl: sdl,
        _video: video,
        canvas,
        events,
        gamepad_subsystem,
        gamepads: Vec::new(),
        keyboard: InputState::default(),
        gamepad: InputState::default(),
        touch: None,
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
    let events: Vec<Event> = open.events.poll_iter().collect();
    for mut event in events {
        // Mouse positions in the picture's pixels, wherever the window letterboxes it.
        event.convert_coords(&open.canvas);
        match event {
            Event::MouseButtonDown { mouse_btn: MouseButton::Left, x, y, .. } => {
                open.touch = touch_point(x, y, open.size);
            }
            Event::MouseMotion { mousestate, x, y, .. } if mousestate.left() => {
                open.touch = touch_point(x, y, open.size)
            }
            Event::MouseButtonUp { mouse_btn: MouseButton::Left, .. } => open.touch = None,
            Event::Quit { .. } => closed.store(true, Ordering::Relaxed),
            Event::KeyDown { scancode: Some(key), repeat: false, .. } => press(&mut open.keyboard, key, true),
            Event::KeyUp { scancode: Some(key), .. } => press(&mut open.keyboard, key, false),
            Event::GamepadAdded { which, .. } => {
                let Some(subsystem) = &open.gamepad_subsystem else { continue };
                match subsystem.open(which) {
                    Ok(gamepad) => {
                        tracing::info!(name = gamepad.name().unwrap_or_default(), "a gamepad joins the controller");
                        open.gamepads.push(gamepad);
                    }
                    Err(error) => tracing::warn!("a gamepad could not be opened: {error}"),
                }
            }
            Event::GamepadButtonDown { button, .. } => gamepad_button(&mut open.gamepad, button, true),
            Event::GamepadButtonUp { button, .. } => gamepad_button(&mut open.gamepad, button, false),
            Event::GamepadAxisMotion { axis, value, .. } => gamepad_axis(&mut open.gamepad, axis, value),
            _ => {}
        }
    }
    input.set(InputState { touch: open.touch, ..combined(&open.keyboard, &open.gamepad) });
    Ok(())
}

/// Where a point of the picture (`size` pixels) lies on the console's 1280x720 touch screen; off the picture, no
/// finger touches it.
fn touch_point(x: f32, y: f32, size: (u32, u32)) -> Option<(u32, u32)> {
    let (width, height) = (size.0 as f32, size.1 as f32);
    let inside = (0.0..width).contains(&x) && (0.0..height).contains(&y);
    inside.then(|| ((x * 1280.0 / width) as u32, (y * 720.0 / height) as u32))
}

/// The keyboard's and the gamepads' input as one controller: buttons from either, a stick from the gamepad
/// where it is pushed.
fn combined(keyboard: &InputState, gamepad: &InputState) -> InputState {
    let stick = |pad: (i32, i32), keys: (i32, i32)| if pad != (0, 0) { pad } else { keys };
    InputState {
        buttons: keyboard.buttons | gamepad.buttons,
        stick_l: stick(gamepad.stick_l, keyboard.stick_l),
        stick_r: stick(gamepad.stick_r, keyboard.stick_r),
        touch: None,
    }
}

/// A gamepad button, by position: Nintendo's A is the east button.
fn gamepad_button(state: &mut InputState, gamepad_button: Button, down: bool) {
    let bit = match gamepad_button {
        Button::East => button::A,
        Button::South => button::B,
        Button::North => button::X,
        Button::West => button::Y,
        Button::LeftStick => button::STICK_L,
        Button::RightStick => button::STICK_R,
        Button::LeftShoulder => button::L,
        Button::RightShoulder => button::R,
        Button::Start => button::PLUS,
        Button::Back => button::MINUS,
        Button::DPadLeft => button::LEFT,
        Button::DPadUp => button::UP,
        Button::DPadRight => button::RIGHT,
        Button::DPadDown => button::DOWN,
        _ => return,
    };
    if down { state.buttons |= bit } else { state.buttons &= !bit }
}

/// Stick positions within this of the centre read as centred (sticks at rest do not sit at exactly 0, and every
/// change would go into the input log).
const DEAD_ZONE: i32 = 0x1000;

/// A gamepad axis: sticks (SDL's Y grows downwards, the Switch's upwards), and triggers past half way as ZL/ZR.
fn gamepad_axis(state: &mut InputState, axis: Axis, value: i16) {
    let value = i32::from(value).clamp(-STICK_MAX, STICK_MAX);
    let stick = if value.abs() < DEAD_ZONE { 0 } else { value };
    let mut trigger = |bit: u64| {
        if value > STICK_MAX / 2 { state.buttons |= bit } else { state.buttons &= !bit }
    };
    match axis {
        Axis::LeftX => state.stick_l.0 = stick,
        Axis::LeftY => state.stick_l.1 = -stick,
        Axis::RightX => state.stick_r.0 = stick,
        Axis::RightY => state.stick_r.1 = -stick,
        Axis::TriggerLeft => trigger(button::ZL),
        Axis::TriggerRight => trigger(button::ZR),
    }
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

    /// A point of the picture lands on the 1280x720 touch screen in proportion, whatever the picture's size; a
    /// point off the picture touches nothing.
    #[test]
    fn picture_points_map_onto_the_touch_screen() {
        assert_eq!(touch_point(0.0, 0.0, (1280, 720)), Some((0, 0)));
        assert_eq!(touch_point(1279.5, 719.5, (1280, 720)), Some((1279, 719)));
        assert_eq!(touch_point(960.0, 540.0, (1920, 1080)), Some((640, 360)));
        assert_eq!(touch_point(1919.9, 0.0, (1920, 1080)), Some((1279, 0)));
        for (x, y) in [(-0.5, 10.0), (10.0, -0.5), (1280.0, 10.0), (10.0, 720.0)] {
            assert_eq!(touch_point(x, y, (1280, 720)), None, "({x}, {y})");
        }
    }

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

    /// Gamepad buttons by position, sticks with the Switch's Y upwards and a dead zone, triggers as ZL/ZR; and the
    /// keyboard's input joined with the gamepad's.
    #[test]
    fn gamepads_join_the_keyboard() {
        let mut pad = InputState::default();
        gamepad_button(&mut pad, Button::East, true);
        gamepad_button(&mut pad, Button::South, true);
        gamepad_button(&mut pad, Button::South, false);
        assert_eq!(pad.buttons, button::A);
        gamepad_axis(&mut pad, Axis::LeftY, -32768);
        gamepad_axis(&mut pad, Axis::LeftX, 0x800);
        assert_eq!(pad.stick_l, (0, STICK_MAX), "pushed up all the way; X inside the dead zone");
        gamepad_axis(&mut pad, Axis::TriggerRight, 30000);
        assert_eq!(pad.buttons, button::A | button::ZR);
        gamepad_axis(&mut pad, Axis::TriggerRight, 100);
        assert_eq!(pad.buttons, button::A);
        let mut keys = InputState::default();
        press(&mut keys, Scancode::Up, true);
        press(&mut keys, Scancode::J, true);
        let both = combined(&keys, &pad);
        assert_eq!(both.buttons, button::A | button::UP);
        assert_eq!((both.stick_l, both.stick_r), ((0, STICK_MAX), (-STICK_MAX, 0)));
    }
}
