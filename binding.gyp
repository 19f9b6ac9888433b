{
  "targets": [
    {
      "target_name": "slowdisk_probe",
      "sources": [
        "native/addon.cc",
        "native/block_io.cc",
        "native/dio_alignment.cc",
        "native/inspection.cc",
        "native/placed_file.cc",
        "native/probe_dir.cc",
        "native/probe_file.cc",
        "native/probe_header.cc",
        "native/record_batch.cc",
        "native/record_json.cc",
        "native/resolve.cc",
        "native/run_delay.cc",
        "native/socket_peer.cc",
        "native/stale_files.cc",
        "native/sys_error.cc",
        "native/tick_clock.cc",
        "native/tick_loop.cc",
        "native/worker.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra", "-fvisibility=hidden", "-ffunction-sections", "-fdata-sections"],
      "ldflags": ["-Wl,--gc-sections"],
      "cflags_cc!": ["-fno-exceptions"]
    }
  ]
}
