//! The window `tandem run` shows frames in (SDL3), opened when the program shows its first frame, so that programs
//! that never draw open none. Each frame is letterboxed into the window at its own aspect ratio.
//!
//! Pacing: guest time runs as fast as the CPU path can run it; a frame is shown no earlier than its guest time
//! after the first frame, so a program paced by the vertical blank plays at its own speed (and a slow run simply
//! shows frames late). Closing the window ends the run between instructions (`RunOutcome::Interrupted`).
//!
//! Where no window can open (no display, SDL's video drivers all fail), the run goes on headless with a warning.

use sdl3::event::Event;
use sdl3::pixels::PixelFormat;
use sdl3::render::{Texture, WindowCanvas};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
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

/// The window: a frame sink for the display, and what happens once the run is over.
pub struct Window {
    state: Rc<RefCell<State>>,
    closed: Arc<AtomicBool>,
}

impl Window {
    /// `closed` is set when the person closes the window.
    pub fn new(closed: Arc<AtomicBool>) -> Window {
        Window { state: Rc::new(RefCell::new(State::NotYet)), closed }
    }

    /// The display's frame sink: opens the window titled `title` at the first frame.
    pub fn frame_sink(&self, title: String) -> FrameSink {
        let state = self.state.clone();
        let closed = self.closed.clone();
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
            if let Err(error) = show(open, shown, &closed) {
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

fn show(open: &mut Open, shown: &ShownFrame, closed: &AtomicBool) -> anyhow::Result<()> {
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
    for event in open.events.poll_iter() {
        if let Event::Quit { .. } = event {
            closed.store(true, Ordering::Relaxed);
        }
    }
    Ok(())
}
