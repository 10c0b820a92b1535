// A shared library named like libcurl (libcurl.so.4, libcurl.so) with none of its entry points:
// tst_model_hub puts its folder first in LD_LIBRARY_PATH, so that the downloader loads this one and
// has to say that it is not the libcurl it needs.
extern "C" int hearsay_not_libcurl() {
    return 0;
}
