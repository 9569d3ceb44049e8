"""The guard's decisions without processes: which pids belong to the tree, in what order, and what an event means."""

from __future__ import annotations

import os
import signal

from launcher.guard import Action, Proc, exit_code, next_action, tree_members

GUARD = 100
LAUNCHER = 50
# init 1 -> launcher 50 -> guard 100 -> dagster dev 200 (group 200) -> webserver 210, code server 220 -> grpc 230;
# 300: an orphan re-parented to the guard (its own session); 400: the launcher's dbt, re-parented to init;
# 500: an unrelated process in nobody's group; 600: a process that joined dagster dev's group from elsewhere.
TABLE = {
    1: Proc(ppid=0, pgid=1),
    LAUNCHER: Proc(ppid=1, pgid=LAUNCHER),
    GUARD: Proc(ppid=LAUNCHER, pgid=GUARD),
    200: Proc(ppid=GUARD, pgid=200),
    210: Proc(ppid=200, pgid=200),
    220: Proc(ppid=200, pgid=200),
    230: Proc(ppid=220, pgid=200),
    300: Proc(ppid=GUARD, pgid=300),
    400: Proc(ppid=1, pgid=LAUNCHER),
    500: Proc(ppid=1, pgid=500),
    600: Proc(ppid=1, pgid=200),
}


def test_the_tree_is_the_guard_s_descendants_and_its_command_s_group_parents_first():
    # Depth from the root of the table: 600 and 400 hang off init, so they come before dagster dev.
    assert tree_members(TABLE, GUARD, groups=[200]) == [600, 200, 300, 210, 220, 230]


def test_marked_processes_join_the_tree_but_never_the_guard_or_the_launcher():
    members = tree_members(TABLE, GUARD, groups=[200], marked=[400, GUARD, LAUNCHER], spare=[LAUNCHER])
    assert members == [400, 600, 200, 300, 210, 220, 230]


def test_marked_pids_no_longer_in_the_table_are_left_out():
    assert tree_members(TABLE, GUARD, marked=[999]) == [200, 300, 210, 220, 230]


def test_a_parent_cycle_in_a_racy_snapshot_does_not_hang():
    table = {GUARD: Proc(ppid=LAUNCHER, pgid=GUARD), 7: Proc(ppid=8, pgid=7), 8: Proc(ppid=7, pgid=7)}
    assert tree_members(table, GUARD, groups=[7]) == [7, 8]


def test_the_launcher_s_end_outranks_everything_else():
    assert next_action(launcher_gone=True, terminate=True, interrupt=True, command_exited=True) is (
        Action.END_TREE_AND_MARKED
    )


def test_sigterm_ends_the_tree_and_a_command_that_exited_leaves_only_leftovers():
    assert next_action(launcher_gone=False, terminate=True, interrupt=True, command_exited=True) is Action.END_TREE
    assert next_action(launcher_gone=False, terminate=False, interrupt=True, command_exited=True) is (
        Action.END_LEFTOVERS
    )


def test_sigint_is_forwarded_and_nothing_new_means_wait():
    assert next_action(launcher_gone=False, terminate=False, interrupt=True, command_exited=False) is Action.INTERRUPT
    assert next_action(launcher_gone=False, terminate=False, interrupt=False, command_exited=False) is Action.WAIT


def test_exit_codes_follow_the_shell_convention():
    exited_3 = 3 << 8  # waitpid's status word: the code in the high byte
    killed_by_sigkill = int(signal.SIGKILL)  # the signal in the low bits
    assert os.WIFEXITED(exited_3) and os.WIFSIGNALED(killed_by_sigkill)
    assert exit_code(exited_3) == 3
    assert exit_code(killed_by_sigkill) == 137
