// NVML binding: being written.
