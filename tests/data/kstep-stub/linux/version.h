/* stub for the syntax check: the version comes from -DSTUB_VERSION_CODE */
#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + (c))
#define LINUX_VERSION_CODE STUB_VERSION_CODE
