/** libuv's threads in a process that writes outputs: enough for every output to have one stuck on a hung disk and still write the others. */
export const OUTPUT_THREADS = '16';
