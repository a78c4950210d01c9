// cudalab's common harness, one include for an exercise's main.c.
#ifndef CUDALAB_H
#define CUDALAB_H

#include "check.h"
#include "check_libs.h"
#include "cli.h"
#include "device.h"
#include "io.h"
#include "ladder.h"
#include "launch.h"
#include "report.h"
#include "rng.h"
#include "timing.h"
#include "verify.h"

#endif
