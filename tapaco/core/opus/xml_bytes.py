"""Byte tests the compiled XML scanners share (:mod:`tapaco.core.opus.document_kernels`,
:mod:`tapaco.core.opus.cesalign_kernels`)."""

from __future__ import annotations

from tapaco.core.kernel_helper import kernel_helper


@kernel_helper
def is_space(byte: int) -> bool:
    """XML whitespace: space, tab, newline, carriage return."""
    return byte == 0x20 or byte == 0x09 or byte == 0x0A or byte == 0x0D


@kernel_helper
def ends_a_name(byte: int) -> bool:
    """Whether an element's name ends before this ASCII byte: whitespace, `>` or `/`."""
    return is_space(byte) or byte == 0x3E or byte == 0x2F
