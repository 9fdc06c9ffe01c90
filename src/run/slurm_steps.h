// Serve sessions inside one Slurm allocation (disagg.md §5, option A): the array task
// running `servebench run --slurm-steps` on the allocation's first node finds the
// allocation's nodes, and runs each process of a session as its own job step on the
// node(s) the plan places it on:
//
//   srun --jobid=$SLURM_JOB_ID --overlap --nodes=K --ntasks=T --nodelist=n1,…
//        --kill-on-bad-exit=1 [--mpi=pmix] [pyxis --container-image=…] <command>
//
// The step inherits servebench's environment plus the command's (srun exports it).
// Stopping the `srun` (SIGTERM, then SIGKILL from the process's watchdog) makes Slurm
// cancel the step on every node; the allocation's end kills whatever is left.
// Not thread-safe; call from the run's thread.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "engine/server_command.h"
#include "engine/session_plan.h"

namespace servebench::run {

struct SlurmNode {
  std::string name;     // Slurm's node name (srun --nodelist)
  std::string address;  // NodeAddr: where the node's processes are reached
};

// The nodes of the allocation this process runs in, in placement order: names from
// `scontrol show hostnames $SLURM_JOB_NODELIST`, addresses from `scontrol show node`.
// FailedPrecondition outside an allocation (no SLURM_JOB_ID / SLURM_JOB_NODELIST).
StatusOr<std::vector<SlurmNode>> AllocationNodes();

// How a process runs on its nodes: the srun step above, around `process.command`.
// `container_image` non-empty with `pyxis` true adds pyxis' container flags.
StatusOr<engine::ServerCommand> SrunStep(const engine::SessionProcess& process,
                                         const std::vector<SlurmNode>& nodes,
                                         const std::string& container_image, bool pyxis,
                                         const std::vector<std::string>& container_mounts);

// True when `host` is an address of this machine (a socket binds to it): processes
// "on another node" there share this host's ports, so they get free ones.
bool IsThisHost(const std::string& host);

}  // namespace servebench::run
