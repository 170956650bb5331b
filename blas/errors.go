package blas

import "github.com/rhgd/rhgd/numerr"

// ErrUnavailable signifies that a backend was requested that this build
// does not contain, such as Native in a pure-Go build.
var ErrUnavailable = numerr.New(numerr.ErrInvalid, "blas: backend not available in this build")

// ErrBadSetting signifies an unparseable RHGD_BLAS or RHGD_THREADS value or
// a thread count below one.
var ErrBadSetting = numerr.New(numerr.ErrInvalid, "blas: bad setting")

// ErrStarted signifies a second Init: the process is set up once.
var ErrStarted = numerr.New(numerr.ErrInvalid, "blas: backend already initialized; Init runs once per process")
