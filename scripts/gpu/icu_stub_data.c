/* An empty ICU data library (libicudata.so.NN; the symbol icudtNN_dat) for the GPU bundle: Qt Core links ICU, whose
 * real data library is 31 MB, too big to carry to the GPU machine; the engine's tests use no ICU
 * data (no collation, time zones or codecs), so an empty table of contents is enough. This is the
 * layout ICU's own "stubdata" library exports: a data header followed by a TOC with no entries. */
#include <stdint.h>

typedef struct {
    uint16_t size;
    uint16_t reservedWord;
    uint8_t isBigEndian;
    uint8_t charsetFamily;
    uint8_t sizeofUChar;
    uint8_t reservedByte;
    uint8_t dataFormat[4];
    uint8_t formatVersion[4];
    uint8_t dataVersion[4];
} DataInfo;

typedef struct {
    uint16_t headerSize;
    uint8_t magic1, magic2;
    DataInfo info;
    char padding[8];
    uint32_t count, reserved;
    int32_t entries[4];
} StubData;

#ifndef ICU_DATA_SYMBOL
#define ICU_DATA_SYMBOL icudt72_dat
#endif

__attribute__((visibility("default"))) const StubData ICU_DATA_SYMBOL = {
    32, 0xda, 0x27,
    {sizeof(DataInfo), 0, 0 /* little-endian */, 0 /* ASCII family */, 2, 0, {0x54, 0x6f, 0x43, 0x50} /* "ToCP" */,
     {1, 0, 0, 0}, {0, 0, 0, 0}},
    {0, 0, 0, 0, 0, 0, 0, 0},
    0, 0,
    {0, 0, 0, 0},
};
