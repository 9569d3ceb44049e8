"""chargeCoding.edits' reading of the reference: a code's PTP rows in either column, a pair, pages."""

from __future__ import annotations

import pytest

from api.core.errors import InvalidInput
from api.denials.charge_coding.service import reference_edits


def test_a_codes_rows_in_either_column_paged_in_table_order():
    # ccipra-v322r0 extract: 0001U is column 1 of 13 rows; 0030U is column 2 of one (0001U/0030U)
    first = reference_edits("0001U", limit=5)
    assert [e.column_2 for e in first.ptp] == ["0028U", "0029U", "0030U", "0034U", "0046U"]
    assert first.next_start == 5
    rest = reference_edits("0001U", start=5, limit=50)
    assert len(rest.ptp) == 8 and rest.next_start is None
    assert first.mue is not None and (first.mue.value, first.mue.mai) == (1, 2)
    column_2 = reference_edits("0030U")
    assert [(e.column_1, e.column_2) for e in column_2.ptp] == [("0001U", "0030U")]


def test_a_pair_in_either_order_and_the_ncd_rule():
    assert [e.modifier_indicator for e in reference_edits("36591", pair_with="0001A").ptp] == [0]
    assert reference_edits("0001U", pair_with="99213").ptp == []
    tsh = reference_edits("84443")
    assert tsh.ptp == [] and tsh.mue is None and tsh.ncd is not None and tsh.ncd.ncd == "190.22"


def test_a_malformed_code_is_refused():
    with pytest.raises(InvalidInput, match="'code'"):
        reference_edits("0001")
    with pytest.raises(InvalidInput, match="'pairWith'"):
        reference_edits("0001U", pair_with="x" * 9)
