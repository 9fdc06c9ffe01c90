// engine/: everything run/ needs to start and supervise serving engines.
//
//   ServeSpec ──RenderServerCommand()──▶ ServerCommand ──Supervisor::Start()──▶ engine
//                                          │ FormatSessionForDisplay() (--dry-run)
//   Supervisor: WaitUntilReady() → ReadyInfo (engine version) | failure() (class +
//   one line); IsAlive()/WaitForExit() mid-point → Classify(kDiedDuringRun); Stop().
//
// Data: data/engine/flags.yaml and failure_signatures.yaml (engine_catalog.h says
// where they are looked for). docs/engines.md documents every rendering and class.
#pragma once

#include "engine/adapter.h"             // RenderServerCommand, WrapInContainer
#include "engine/command_display.h"     // FormatCommandForDisplay, FormatSessionForDisplay
#include "engine/engine_catalog.h"      // EngineCatalog, DefaultEngineCatalog
#include "engine/failure_classifier.h"  // EngineFailure, Situation, ClassifyFailure
#include "engine/free_port.h"           // FindFreePort
#include "engine/hub_snapshots.h"       // ResolveHubSnapshots (snapshot words at launch)
#include "engine/prepare_steps.h"       // RunPrepareSteps (serve.prepare)
#include "engine/server_command.h"      // ServerCommand, RenderOptions, ContainerProfile
#include "engine/session_plan.h"  // PlanSession, CheckSession: serve sessions of several processes
#include "engine/supervisor.h"    // Supervisor, StopAllEngines, signal cleanup
