package blas

// NativeThreads and SetNativeThreads read and set the native library's
// thread count directly, as a host program would, for the external tests.
var NativeThreads, SetNativeThreads = nativeThreads, nativeSetThreads
