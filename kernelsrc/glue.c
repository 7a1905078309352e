/* eevdf-check kernel backend: our core.c side around the kernel's own fair
 * class.  It is compiled in the same translation unit as the code
 * kernelsrc/extract.py takes from a kernel tree (fair_extract.c includes
 * this file last), so it calls the fair class's static hooks directly, in
 * the order kernel/sched/core.c calls them (6.12, and later versions where
 * they differ: glue/versions.h), with the clock the scenario sets.  One CPU,
 * or several (runqueues N) on a tree with the SMP code: set_task_cpu() with
 * the tree's migrate_task_rq_fair(), a wake-up on another CPU (WF_MIGRATED),
 * the load balancer's detach_task() + attach_task().
 *
 * The parts below are #included, not compiled apart: they share this one
 * translation unit with the tree's code, so each sees the tree's static
 * functions and the glue's static state (glue/state.h).  The order matters:
 * a part calls what an earlier part or state.h declares.  extract.py reads
 * this file with each `#include "glue/..."` line replaced by that part's
 * text: every identifier of the tree that a part uses is a root of the
 * extraction.
 */
#include "glue/versions.h"     /* version differences, by name */
#include "glue/state.h"        /* the runqueues, tasks, groups and the glue's flags */
#include "glue/services.c"     /* core.c services the fair class calls; the RT class's stand-in */
#include "glue/wake_cpu.c"     /* topology and the wake-up CPU choice; migration */
#include "glue/bandwidth.c"    /* CPU bandwidth control: cpu.max, the hrtimers, the CSD */
#include "glue/setup.c"        /* sched_init(), init_idle() */
#include "glue/schedule.c"     /* __schedule(), the pick, blocking, yield */
#include "glue/wake.c"         /* wake_up_new_task(), try_to_wake_up(), wakeup_preempt() */
#include "glue/tick.c"         /* sched_tick() and the passing of time */
#include "glue/change.c"       /* the sched_change pattern: nice, policy and slice */
#include "glue/fork.c"         /* sched_fork(), copy_process(), a dead task */
#include "glue/group.c"        /* task groups: creation, shares, idle, removal, moves */
#include "glue/events.c"       /* the tree's functions interposed, and their events */
#include "glue/export.c"       /* the state for the C++ side */
#include "glue/debugfs.c"      /* the sched debugfs files */
