//! The scheduler: which thread each guest core runs, by Horizon's rules (mesosphère's `KScheduler` and
//! `KPriorityQueue` are where these facts come from; the code is ours).
//!
//! - Priorities run from 0 (highest) to 63 (lowest). Each thread has an *active core* (or none) and an affinity mask.
//!   A runnable thread sits in its active core's *scheduled* queue and in the *suggested* queue of every other core
//!   of its mask, at the back of its priority's FIFO.
//! - Each core runs the front of its scheduled queue: the highest-priority thread, the longest-queued among equals.
//!   A thread that becomes runnable with a higher priority than the running one therefore takes the core at once.
//! - A core with nothing scheduled takes a suggested thread that is not the one running on its own core (unless that
//!   core runs a thread of priority 0 or 1); failing that, it takes the running thread of a core that has another
//!   thread to run instead.
//! - Equal priorities share a core only by yielding (SleepThread 0, -1, -2) and by the preemption timer, which every
//!   10 ms rotates one priority level per core (59 on the application cores, 63 on the system core).
//!
//! The scheduler only orders threads; the kernel tells it when a thread becomes runnable or stops being runnable,
//! and when its priority or affinity changes.

use super::ThreadId;
use std::collections::{BTreeMap, VecDeque};

/// Horizon's lowest thread priority; 0 is the highest.
pub const LOWEST_PRIORITY: u8 = 63;
/// Migrations never take a core from a thread of a priority above this (0 and 1).
const HIGHEST_MIGRATION_ALLOWED_PRIORITY: u8 = 2;
const PRIORITIES: usize = LOWEST_PRIORITY as usize + 1;

/// What the scheduler knows of one thread.
#[derive(Clone, Copy, Debug)]
struct Entry {
    priority: u8,
    active_core: Option<usize>,
    affinity: u64,
    /// In the queues: runnable and not paused.
    queued: bool,
    /// When the thread last stopped being the one a core runs (guest ticks); yields prefer threads that have waited
    /// longer.
    last_scheduled_tick: u64,
}

/// One FIFO per core and priority.
#[derive(Debug)]
struct Queues {
    fifos: Vec<Vec<VecDeque<ThreadId>>>,
}

impl Queues {
    fn new(cores: usize) -> Queues {
        Queues { fifos: vec![vec![VecDeque::new(); PRIORITIES]; cores] }
    }

    fn fifo(&mut self, core: usize, priority: u8) -> &mut VecDeque<ThreadId> {
        &mut self.fifos[core][usize::from(priority)]
    }

    fn push_back(&mut self, core: usize, priority: u8, id: ThreadId) {
        self.fifo(core, priority).push_back(id);
    }

    fn push_front(&mut self, core: usize, priority: u8, id: ThreadId) {
        self.fifo(core, priority).push_front(id);
    }

    fn remove(&mut self, core: usize, priority: u8, id: ThreadId) {
        let fifo = self.fifo(core, priority);
        if let Some(position) = fifo.iter().position(|&t| t == id) {
            fifo.remove(position);
        }
    }

    /// Moves `id` to the back of its FIFO; returns the new front.
    fn move_to_back(&mut self, core: usize, priority: u8, id: ThreadId) -> Option<ThreadId> {
        self.remove(core, priority, id);
        self.push_back(core, priority, id);
        self.fifo(core, priority).front().copied()
    }

    /// The highest-priority thread of `core`.
    fn front(&self, core: usize) -> Option<ThreadId> {
        self.fifos[core].iter().find_map(|fifo| fifo.front().copied())
    }

    fn front_at(&self, core: usize, priority: u8) -> Option<ThreadId> {
        self.fifos[core][usize::from(priority)].front().copied()
    }

    /// The thread after `id` (of `priority`) in `core`'s order: the next of its FIFO, else the front of the next
    /// non-empty lower priority.
    fn next(&self, core: usize, priority: u8, id: ThreadId) -> Option<ThreadId> {
        self.same_priority_next(core, priority, id)
            .or_else(|| self.fifos[core][usize::from(priority) + 1..].iter().find_map(|fifo| fifo.front().copied()))
    }

    fn same_priority_next(&self, core: usize, priority: u8, id: ThreadId) -> Option<ThreadId> {
        let fifo = &self.fifos[core][usize::from(priority)];
        fifo.iter().position(|&t| t == id).and_then(|position| fifo.get(position + 1).copied())
    }
}

fn cores_of(mask: u64) -> impl Iterator<Item = usize> {
    (0..64).filter(move |core| mask >> core & 1 != 0)
}

/// The scheduler of a process on `cores` guest cores.
#[derive(Debug)]
pub struct Scheduler {
    entries: BTreeMap<ThreadId, Entry>,
    scheduled: Queues,
    suggested: Queues,
    /// The thread each core runs.
    highest: Vec<Option<ThreadId>>,
    needs_update: bool,
}

impl Scheduler {
    pub fn new(cores: usize) -> Scheduler {
        Scheduler {
            entries: BTreeMap::new(),
            scheduled: Queues::new(cores),
            suggested: Queues::new(cores),
            highest: vec![None; cores],
            needs_update: false,
        }
    }

    /// Starts tracking a thread (not runnable yet) with its priority, ideal core and affinity mask (only cores below
    /// the scheduler's count).
    pub fn add(&mut self, id: ThreadId, priority: u8, core: usize, affinity: u64) {
        let entry = Entry { priority, active_core: Some(core), affinity, queued: false, last_scheduled_tick: 0 };
        self.entries.insert(id, entry);
    }

    /// Forgets a thread that is no longer runnable.
    pub fn forget(&mut self, id: ThreadId) {
        self.set_queued(id, false);
        self.entries.remove(&id);
        for highest in &mut self.highest {
            if *highest == Some(id) {
                *highest = None;
                self.needs_update = true;
            }
        }
    }

    fn entry(&self, id: ThreadId) -> Entry {
        self.entries[&id]
    }

    fn entry_mut(&mut self, id: ThreadId) -> &mut Entry {
        self.entries.get_mut(&id).expect("the scheduler tracks every live thread")
    }

    pub fn priority(&self, id: ThreadId) -> u8 {
        self.entry(id).priority
    }

    /// The thread `core` runs.
    pub fn highest(&self, core: usize) -> Option<ThreadId> {
        self.highest[core]
    }

    /// Whether something changed since the last [`Scheduler::update`].
    pub fn needs_update(&self) -> bool {
        self.needs_update
    }

    /// Puts the thread in the queues (it became runnable) or takes it out.
    pub fn set_queued(&mut self, id: ThreadId, queued: bool) {
        let Some(entry) = self.entries.get(&id) else { return };
        if entry.queued == queued {
            return;
        }
        if queued {
            self.push_back(id);
        } else {
            self.remove(id, entry.priority);
        }
        self.entry_mut(id).queued = queued;
        self.needs_update = true;
    }

    /// Changes the thread's (effective) priority. A running thread keeps its core: it goes to the front of its new
    /// level; any other goes to the back.
    pub fn set_priority(&mut self, id: ThreadId, priority: u8, running: bool) {
        let entry = self.entry(id);
        self.entry_mut(id).priority = priority;
        if entry.queued && entry.priority != priority {
            self.remove(id, entry.priority);
            if running {
                self.push_front(id)
            } else {
                self.push_back(id)
            }
            self.needs_update = true;
        }
    }

    /// SetThreadCoreMask: a new affinity mask; if the active core leaves the mask, the thread moves to `ideal`, or
    /// to the highest core of the mask when it has no ideal core.
    pub fn set_affinity(&mut self, id: ThreadId, ideal: Option<usize>, affinity: u64) {
        let old = self.entry(id);
        if old.affinity == affinity {
            return;
        }
        let mut active_core = old.active_core;
        if let Some(core) = active_core
            && affinity >> core & 1 == 0
        {
            active_core = Some(ideal.unwrap_or(63 - affinity.leading_zeros() as usize));
        }
        if old.queued {
            self.remove(id, old.priority);
        }
        let entry = self.entry_mut(id);
        entry.affinity = affinity;
        entry.active_core = active_core;
        if old.queued {
            self.push_back(id);
            self.needs_update = true;
        }
    }

    fn push_back(&mut self, id: ThreadId) {
        let entry = self.entry(id);
        if let Some(core) = entry.active_core {
            self.scheduled.push_back(core, entry.priority, id);
        }
        for core in cores_of(entry.affinity).filter(|&core| Some(core) != entry.active_core) {
            self.suggested.push_back(core, entry.priority, id);
        }
    }

    fn push_front(&mut self, id: ThreadId) {
        let entry = self.entry(id);
        if let Some(core) = entry.active_core {
            self.scheduled.push_front(core, entry.priority, id);
        }
        // As Horizon does: the suggestions go to the back even here.
        for core in cores_of(entry.affinity).filter(|&core| Some(core) != entry.active_core) {
            self.suggested.push_back(core, entry.priority, id);
        }
    }

    fn remove(&mut self, id: ThreadId, priority: u8) {
        let entry = self.entry(id);
        if let Some(core) = entry.active_core {
            self.scheduled.remove(core, priority, id);
        }
        for core in cores_of(entry.affinity).filter(|&core| Some(core) != entry.active_core) {
            self.suggested.remove(core, priority, id);
        }
    }

    /// Moves a queued thread from its active core to `core` (`None`: no core, suggested everywhere).
    fn migrate(&mut self, id: ThreadId, core: Option<usize>, to_front: bool) {
        let entry = self.entry(id);
        let previous = entry.active_core;
        self.entry_mut(id).active_core = core;
        if previous == core {
            return;
        }
        if let Some(previous) = previous {
            self.scheduled.remove(previous, entry.priority, id);
        }
        if let Some(core) = core {
            self.suggested.remove(core, entry.priority, id);
            if to_front {
                self.scheduled.push_front(core, entry.priority, id);
            } else {
                self.scheduled.push_back(core, entry.priority, id);
            }
        }
        if let Some(previous) = previous {
            self.suggested.push_back(previous, entry.priority, id);
        }
    }

    fn set_highest(&mut self, core: usize, thread: Option<ThreadId>, now_tick: u64) {
        if self.highest[core] != thread {
            if let Some(previous) = self.highest[core]
                && let Some(entry) = self.entries.get_mut(&previous)
            {
                entry.last_scheduled_tick = now_tick;
            }
            self.highest[core] = thread;
        }
    }

    fn allows_migration_from(&self, running: Option<ThreadId>) -> bool {
        running.is_none_or(|thread| self.priority(thread) >= HIGHEST_MIGRATION_ALLOWED_PRIORITY)
    }

    /// Chooses the thread of every core (Horizon's UpdateHighestPriorityThreads): the front of each core's queue,
    /// then, for each idle core in order, a migration.
    pub fn update(&mut self, now_tick: u64) {
        self.needs_update = false;
        let cores = self.highest.len();
        let mut top: Vec<Option<ThreadId>> = (0..cores).map(|core| self.scheduled.front(core)).collect();
        for (core, thread) in top.clone().into_iter().enumerate() {
            self.set_highest(core, thread, now_tick);
        }
        let idle: Vec<usize> = (0..cores).filter(|&core| top[core].is_none()).collect();
        for core in idle {
            let mut candidates = Vec::new();
            let mut suggestion = self.suggested.front(core);
            while let Some(thread) = suggestion {
                let entry = self.entry(thread);
                let top_of_its_core = entry.active_core.and_then(|c| top[c]);
                if top_of_its_core != Some(thread) {
                    if !self.allows_migration_from(top_of_its_core) {
                        break;
                    }
                    self.migrate(thread, Some(core), false);
                    top[core] = Some(thread);
                    self.set_highest(core, Some(thread), now_tick);
                    break;
                }
                candidates.extend(entry.active_core);
                suggestion = self.suggested.next(core, entry.priority, thread);
            }
            if suggestion.is_some() {
                continue;
            }
            // Every suggestion runs on its own core: take one whose core has something else to run.
            for candidate_core in candidates {
                let Some(thread) = top[candidate_core] else { continue };
                let next = self.scheduled.next(candidate_core, self.priority(thread), thread);
                if let Some(next) = next {
                    top[candidate_core] = Some(next);
                    self.set_highest(candidate_core, Some(next), now_tick);
                    self.migrate(thread, Some(core), false);
                    top[core] = Some(thread);
                    self.set_highest(core, Some(thread), now_tick);
                    break;
                }
            }
        }
    }

    /// SleepThread(0): to the back of its priority on its core.
    pub fn yield_without_core_migration(&mut self, id: ThreadId) {
        let entry = self.entry(id);
        if let (true, Some(core)) = (entry.queued, entry.active_core) {
            self.scheduled.move_to_back(core, entry.priority, id);
            self.needs_update = true;
        }
    }

    /// SleepThread(-1): to the back of its priority, and pull a thread of the same priority (or a better one) from
    /// another core when that one is not running there and has waited longer than the next thread here.
    pub fn yield_with_core_migration(&mut self, id: ThreadId) {
        let entry = self.entry(id);
        let (true, Some(core)) = (entry.queued, entry.active_core) else { return };
        let next = self.scheduled.move_to_back(core, entry.priority, id);
        let mut suggestion = self.suggested.front(core);
        while let Some(thread) = suggestion {
            let suggested = self.entry(thread);
            let running = suggested.active_core.and_then(|c| self.highest[c]);
            if running != Some(thread) {
                let next_waited_longer = next.is_some_and(|next| {
                    next != id && self.entry(next).last_scheduled_tick < suggested.last_scheduled_tick
                });
                if suggested.priority > entry.priority || (suggested.priority == entry.priority && next_waited_longer) {
                    break;
                }
                if self.allows_migration_from(running) {
                    self.migrate(thread, Some(core), true);
                    break;
                }
            }
            suggestion = self.suggested.next(core, suggested.priority, thread);
        }
        self.needs_update = true;
    }

    /// SleepThread(-2): leave the core (the thread stays runnable, suggested to every core of its mask), and let this
    /// core take a suggested thread if it has nothing else.
    pub fn yield_to_any_thread(&mut self, id: ThreadId) {
        let entry = self.entry(id);
        let (true, Some(core)) = (entry.queued, entry.active_core) else { return };
        self.migrate(id, None, false);
        if self.scheduled.front(core).is_none() {
            let mut suggestion = self.suggested.front(core);
            while let Some(thread) = suggestion {
                let suggested = self.entry(thread);
                let top_of_its_core = suggested.active_core.and_then(|c| self.scheduled.front(c));
                if top_of_its_core != Some(thread) {
                    if self.allows_migration_from(top_of_its_core) {
                        self.migrate(thread, Some(core), false);
                    }
                    break;
                }
                suggestion = self.suggested.next(core, suggested.priority, thread);
            }
        }
        self.needs_update = true;
    }

    /// The preemption timer's rotation of `priority` on `core` (Horizon's RotateScheduledQueue): the front thread of
    /// that level goes to the back; a same-priority thread from another core may take the front; then a
    /// higher-priority suggestion may move here if the best thread left is no better than `priority`.
    pub fn rotate(&mut self, core: usize, priority: u8) {
        let top = self.scheduled.front_at(core, priority);
        let next = top.and_then(|thread| self.scheduled.move_to_back(core, priority, thread));
        let mut suggestion = self.suggested.front_at(core, priority);
        while let Some(thread) = suggestion {
            let suggested = self.entry(thread);
            let top_of_its_core = suggested.active_core.and_then(|c| self.scheduled.front(c));
            if top_of_its_core != Some(thread) {
                if let Some(next) = next
                    && top != Some(next)
                    && self.entry(next).last_scheduled_tick < suggested.last_scheduled_tick
                {
                    break;
                }
                if self.allows_migration_from(top_of_its_core) {
                    self.migrate(thread, Some(core), true);
                    break;
                }
            }
            suggestion = self.suggested.same_priority_next(core, priority, thread);
        }
        if let Some(best) = self.scheduled.front(core)
            && self.priority(best) >= priority
        {
            let best_priority = self.priority(best);
            let mut suggestion = self.suggested.front(core);
            while let Some(thread) = suggestion {
                let suggested = self.entry(thread);
                if suggested.priority >= best_priority {
                    break;
                }
                let top_of_its_core = suggested.active_core.and_then(|c| self.scheduled.front(c));
                if top_of_its_core != Some(thread) && self.allows_migration_from(top_of_its_core) {
                    self.migrate(thread, Some(core), true);
                    break;
                }
                suggestion = self.suggested.next(core, suggested.priority, thread);
            }
        }
        self.needs_update = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scheduler with threads given as (id, priority, core, affinity), all runnable, updated once.
    fn scheduler(cores: usize, threads: &[(ThreadId, u8, usize, u64)]) -> Scheduler {
        let mut scheduler = Scheduler::new(cores);
        for &(id, priority, core, affinity) in threads {
            scheduler.add(id, priority, core, affinity);
            scheduler.set_queued(id, true);
        }
        scheduler.update(0);
        scheduler
    }

    fn running(scheduler: &Scheduler) -> Vec<Option<ThreadId>> {
        scheduler.highest.clone()
    }

    #[test]
    fn the_highest_priority_runs_and_preempts() {
        let mut s = scheduler(4, &[(1, 44, 0, 0b1), (2, 50, 0, 0b1)]);
        assert_eq!(s.highest(0), Some(1));
        s.add(3, 30, 0, 0b1);
        s.set_queued(3, true);
        assert!(s.needs_update());
        s.update(1);
        assert_eq!(s.highest(0), Some(3), "a better thread takes the core as soon as it is runnable");
        s.set_queued(3, false);
        s.update(2);
        assert_eq!(s.highest(0), Some(1));
    }

    #[test]
    fn equal_priorities_round_robin_only_on_yield() {
        let mut s = scheduler(4, &[(1, 44, 0, 0b1), (2, 44, 0, 0b1), (3, 44, 0, 0b1)]);
        let mut order = Vec::new();
        for tick in 0..6 {
            let thread = s.highest(0).unwrap();
            order.push(thread);
            s.yield_without_core_migration(thread);
            s.update(tick);
        }
        assert_eq!(order, [1, 2, 3, 1, 2, 3]);
    }

    #[test]
    fn a_priority_change_of_the_running_thread_keeps_it_in_front() {
        let mut s = scheduler(4, &[(1, 44, 0, 0b1), (2, 40, 0, 0b1), (3, 40, 0, 0b1)]);
        assert_eq!(s.highest(0), Some(2));
        s.set_priority(2, 40, true);
        s.set_priority(1, 40, false);
        s.update(1);
        assert_eq!(s.highest(0), Some(2));
        // Lowered while running: it goes to the front of its new level, behind nobody of that level.
        s.set_priority(2, 44, true);
        s.update(2);
        assert_eq!(s.highest(0), Some(3), "3 was queued at 40 before 1 joined it");
    }

    #[test]
    fn idle_cores_take_suggested_threads() {
        // Both threads may run on cores 0-2 but start on core 0: core 1 takes the one core 0 does not run.
        let s = scheduler(4, &[(1, 44, 0, 0b111), (2, 44, 0, 0b111)]);
        assert_eq!(running(&s), [Some(1), Some(2), None, None]);
    }

    #[test]
    fn an_idle_core_takes_a_running_thread_whose_core_has_another() {
        // 2 is bound to core 0; 1 runs on core 0 but may run on 1. Core 1 takes 1, core 0 runs 2.
        let s = scheduler(4, &[(1, 30, 0, 0b11), (2, 44, 0, 0b1)]);
        assert_eq!(running(&s), [Some(2), Some(1), None, None]);
    }

    #[test]
    fn threads_of_priority_0_and_1_are_not_robbed() {
        let s = scheduler(4, &[(1, 1, 0, 0b1), (2, 44, 0, 0b11)]);
        // 2 is suggested to core 1 but core 0 runs a priority-1 thread: no migration.
        assert_eq!(running(&s), [Some(1), None, None, None]);
    }

    #[test]
    fn yield_to_any_thread_leaves_the_core() {
        let mut s = scheduler(4, &[(1, 44, 0, 0b11), (2, 44, 1, 0b10)]);
        assert_eq!(running(&s), [Some(1), Some(2), None, None]);
        s.yield_to_any_thread(1);
        s.update(5);
        // 1 has no active core now; core 0 is idle and takes it back through its suggested queue.
        assert_eq!(running(&s), [Some(1), Some(2), None, None]);
        assert_eq!(s.entry(1).active_core, Some(0));
    }

    #[test]
    fn yield_with_core_migration_pulls_a_waiting_thread() {
        // Core 0 runs 1; 2 and 3 wait on core 1 (2 runs there); 3 may also run on core 0.
        let mut s = scheduler(4, &[(1, 44, 0, 0b1), (2, 44, 1, 0b10), (3, 44, 1, 0b11)]);
        assert_eq!(running(&s), [Some(1), Some(2), None, None]);
        s.yield_with_core_migration(1);
        s.update(1);
        assert_eq!(running(&s), [Some(3), Some(2), None, None], "3 moves to core 0 and runs before 1");
    }

    #[test]
    fn affinity_changes_move_the_thread() {
        let mut s = scheduler(4, &[(1, 44, 0, 0b1), (2, 44, 0, 0b1)]);
        s.set_affinity(2, Some(2), 0b100);
        s.update(1);
        assert_eq!(running(&s), [Some(1), None, Some(2), None]);
        s.set_affinity(2, None, 0b1010);
        s.update(2);
        assert_eq!(running(&s), [Some(1), None, None, Some(2)], "no ideal core: the highest core of the mask");
    }

    #[test]
    fn rotation_shares_a_core_among_equals() {
        let mut s = scheduler(4, &[(1, 59, 0, 0b1), (2, 59, 0, 0b1), (3, 44, 1, 0b10)]);
        assert_eq!(s.highest(0), Some(1));
        s.rotate(0, 59);
        s.rotate(1, 59);
        s.update(1);
        assert_eq!(running(&s), [Some(2), Some(3), None, None]);
    }

    #[test]
    fn eight_cores_work_the_same() {
        let threads: Vec<(ThreadId, u8, usize, u64)> = (0..8).map(|i| (i, 44, 0, 0b0011_1111)).collect();
        let s = scheduler(8, &threads);
        assert_eq!(running(&s), [Some(0), Some(1), Some(2), Some(3), Some(4), Some(5), None, None]);
    }
}
