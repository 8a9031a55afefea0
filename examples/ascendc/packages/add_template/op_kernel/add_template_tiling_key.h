// AddTemplate's kernel template parameters (tiling template programming): the element type,
// and whether the tensor ends inside a 32-byte block (the last tile of the last core then moves
// with DataCopyPad). The host encodes its choice as the tiling key with ASCENDC_TPL_SEL_PARAM;
// every combination listed in ASCENDC_TPL_SEL is built.
#ifndef ADD_TEMPLATE_TILING_KEY_H
#define ADD_TEMPLATE_TILING_KEY_H

#include "ascendc/host_api/tiling/template_argument.h"

#define ADD_TEMPLATE_WHOLE_BLOCKS 0
#define ADD_TEMPLATE_PARTIAL_TAIL 1

ASCENDC_TPL_ARGS_DECL(AddTemplate,
    ASCENDC_TPL_DATATYPE_DECL(D_T_X, C_DT_FLOAT, C_DT_FLOAT16, C_DT_BF16, C_DT_INT32,
                              ASCENDC_TPL_INPUT(0)),
    ASCENDC_TPL_UINT_DECL(TAIL_MODE, ASCENDC_TPL_1_BW, ASCENDC_TPL_UI_LIST,
                          ADD_TEMPLATE_WHOLE_BLOCKS, ADD_TEMPLATE_PARTIAL_TAIL));

ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(
        ASCENDC_TPL_KERNEL_TYPE_SEL(ASCENDC_TPL_AIV_ONLY),
        ASCENDC_TPL_DATATYPE_SEL(D_T_X, C_DT_FLOAT, C_DT_FLOAT16, C_DT_BF16, C_DT_INT32),
        ASCENDC_TPL_UINT_SEL(TAIL_MODE, ASCENDC_TPL_UI_LIST, ADD_TEMPLATE_WHOLE_BLOCKS,
                             ADD_TEMPLATE_PARTIAL_TAIL)));

#endif  // ADD_TEMPLATE_TILING_KEY_H
