"""UTF-8 decoding for the compiled kernels that read text as bytes."""

from __future__ import annotations

import numpy as np

from tapaco.core.kernel_helper import kernel_helper


@kernel_helper
def code_point_at(data, at) -> tuple:
    """The code point whose valid UTF-8 starts at data[at], and its length in bytes."""
    lead = np.int64(data[at])
    if lead < 0x80:
        return lead, 1
    if lead < 0xE0:
        code, width = lead & 0x1F, 2
    elif lead < 0xF0:
        code, width = lead & 0x0F, 3
    else:
        code, width = lead & 0x07, 4
    for k in range(1, width):
        code = (code << 6) | (np.int64(data[at + k]) & 0x3F)
    return code, width
