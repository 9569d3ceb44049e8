"""Check the ISA/GS/ST envelope nesting and control values.

Runs over the envelope segments only (a handful per transaction), so a plain
Python state machine is cheap here. Structural problems (a missing SE, GE or
IEA, a segment outside a transaction) are always errors; count and
control-number mismatches are errors only when ``strict`` is set, because
de-identified sample files often carry junk control values.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipelines.ingest.x12.errors import X12ParseError

ENVELOPE_IDS = ("ISA", "IEA", "GS", "GE", "ST", "SE")
SUPPORTED_SETS = ("835", "837")


@dataclass(slots=True)
class TransactionEnvelope:
    """What the envelope says about one ST..SE transaction set."""

    transaction_index: int
    interchange_control_number: str
    group_control_number: str
    transaction_control_number: str
    version: str
    # ISA09 (YYMMDD) and ISA10 (HHMM): with ISA13 they order two remittances paid the same day.
    interchange_date: str
    interchange_time: str
    sender_id: str
    receiver_id: str
    transaction_set: str
    implementation_reference: str | None
    st_segment: int
    # GS04 (CCYYMMDD): when the sender built the group. The 837 submission date falls back to it,
    # then to ISA09, when BHT04 is missing or not a date.
    group_date: str | None = None


def _get(el: list[str], i: int) -> str:
    return el[i] if i < len(el) and el[i] is not None else ""


@dataclass
class EnvelopeValidator:
    """Stateful checker fed the envelope segments of a file in order, chunk by chunk."""

    source: str
    strict: bool = True
    # The transaction sets this reader accepts (ST01); the eligibility reader passes ("271",).
    sets: tuple[str, ...] = SUPPORTED_SETS
    transactions: list[TransactionEnvelope] = field(default_factory=list)
    interchanges: int = 0
    kind: str | None = None
    last_segment: int = 0
    _isa: list[str] | None = None
    _gs: list[str] | None = None
    _st: list[str] | None = None
    _st_seg: int = 0
    _gs_count: int = 0
    _st_count: int = 0

    @property
    def in_transaction(self) -> bool:
        """True while an ST has been seen without its SE."""
        return self._st is not None

    def _fail(self, seg_no: int, sid: str, detail: str, expected: str) -> X12ParseError:
        return X12ParseError(self.source, detail, segment_number=seg_no, segment_id=sid, expected=expected)

    def feed(self, seg_no: int, sid: str, el: list[str]) -> None:
        """Check one envelope segment (ISA, GS, ST, SE, GE or IEA)."""
        self.last_segment = seg_no
        getattr(self, f"_on_{sid.lower()}")(seg_no, el)

    def _on_isa(self, seg_no: int, el: list[str]) -> None:
        if self._isa is not None:
            raise self._fail(seg_no, "ISA", "ISA found inside an open interchange", "IEA before the next ISA")
        if len(el) != 17:
            raise self._fail(seg_no, "ISA", f"ISA has {len(el) - 1} elements", "16 ISA elements")
        self._isa = el
        self._gs_count = 0
        self.interchanges += 1

    def _on_gs(self, seg_no: int, el: list[str]) -> None:
        if self._isa is None:
            raise self._fail(seg_no, "GS", "GS outside an interchange", "ISA before GS")
        if self._gs is not None:
            raise self._fail(seg_no, "GS", "GS found inside an open functional group", "GE before the next GS")
        self._gs = el
        self._gs_count += 1
        self._st_count = 0

    def _on_st(self, seg_no: int, el: list[str]) -> None:
        if self._gs is None:
            raise self._fail(seg_no, "ST", "ST outside a functional group", "GS before ST")
        if self._st is not None:
            raise self._fail(
                seg_no,
                "ST",
                f"ST found while transaction {_get(self._st, 2)} is still open",
                f"SE closing transaction {_get(self._st, 2)}",
            )
        code = _get(el, 1)
        if code not in self.sets:
            raise self._fail(
                seg_no, "ST", f"unsupported transaction set {code[:3]!r}", f"ST01 of {' or '.join(self.sets)}"
            )
        if self.kind is None:
            self.kind = code
        elif code != self.kind:
            raise self._fail(
                seg_no,
                "ST",
                f"file mixes transaction sets {self.kind} and {code}",
                f"ST01={self.kind} like the first transaction",
            )
        self._st = el
        self._st_seg = seg_no
        self._st_count += 1
        assert self._isa is not None
        self.transactions.append(
            TransactionEnvelope(
                transaction_index=len(self.transactions),
                interchange_control_number=_get(self._isa, 13),
                group_control_number=_get(self._gs, 6),
                transaction_control_number=_get(el, 2),
                version=_get(self._gs, 8),
                interchange_date=_get(self._isa, 9).strip(),
                interchange_time=_get(self._isa, 10).strip(),
                sender_id=_get(self._isa, 6).strip(),
                receiver_id=_get(self._isa, 8).strip(),
                transaction_set=code,
                implementation_reference=_get(el, 3) or None,
                st_segment=seg_no,
                group_date=_get(self._gs, 4) or None,
            )
        )

    def _on_se(self, seg_no: int, el: list[str]) -> None:
        if self._st is None:
            raise self._fail(seg_no, "SE", "SE without a matching ST", "ST before SE")
        st02 = _get(self._st, 2)
        if self.strict:
            counted = seg_no - self._st_seg + 1
            se01 = _get(el, 1)
            if se01 != str(counted) and not (se01.isdigit() and int(se01) == counted):
                raise self._fail(
                    seg_no,
                    "SE",
                    f"expected SE01={counted} segments in transaction {st02}, found {se01[:12]!r}",
                    f"SE01={counted}",
                )
            se02 = _get(el, 2)
            if se02 != st02:
                raise self._fail(
                    seg_no,
                    "SE",
                    f"SE02 control number {se02[:12]!r} does not match ST02 {st02!r}",
                    f"SE02={st02}",
                )
        self._st = None

    def _on_ge(self, seg_no: int, el: list[str]) -> None:
        if self._st is not None:
            st02 = _get(self._st, 2)
            raise self._fail(
                seg_no, "GE", f"GE found while transaction {st02} has no SE", f"SE closing transaction {st02}"
            )
        if self._gs is None:
            raise self._fail(seg_no, "GE", "GE without a matching GS", "GS before GE")
        if self.strict:
            ge01 = _get(el, 1)
            if not (ge01.isdigit() and int(ge01) == self._st_count):
                raise self._fail(
                    seg_no,
                    "GE",
                    f"expected GE01={self._st_count} transaction sets in the group, found {ge01[:12]!r}",
                    f"GE01={self._st_count}",
                )
            gs06 = _get(self._gs, 6)
            if _get(el, 2) != gs06:
                raise self._fail(
                    seg_no,
                    "GE",
                    f"GE02 {_get(el, 2)[:12]!r} does not match GS06 {gs06!r}",
                    f"GE02={gs06}",
                )
        self._gs = None

    def _on_iea(self, seg_no: int, el: list[str]) -> None:
        if self._st is not None or self._gs is not None:
            raise self._fail(seg_no, "IEA", "IEA found inside an open group or transaction", "GE/SE before IEA")
        if self._isa is None:
            raise self._fail(seg_no, "IEA", "IEA without a matching ISA", "ISA before IEA")
        if self.strict:
            iea01 = _get(el, 1)
            if not (iea01.isdigit() and int(iea01) == self._gs_count):
                raise self._fail(
                    seg_no,
                    "IEA",
                    f"expected IEA01={self._gs_count} functional groups, found {iea01[:12]!r}",
                    f"IEA01={self._gs_count}",
                )
            isa13 = _get(self._isa, 13)
            if _get(el, 2) != isa13:
                raise self._fail(
                    seg_no,
                    "IEA",
                    f"IEA02 {_get(el, 2)[:12]!r} does not match ISA13 {isa13!r}",
                    f"IEA02={isa13}",
                )
        self._isa = None

    def finish(self) -> None:
        """Fail if the input ended inside an open envelope or had no transaction at all."""
        where = self.last_segment
        if self._st is not None:
            st02 = _get(self._st, 2)
            raise X12ParseError(
                self.source,
                f"input ends inside transaction {st02} (truncated file?)",
                segment_number=where,
                expected=f"SE closing transaction {st02}",
            )
        if self._gs is not None:
            raise X12ParseError(
                self.source,
                "input ends inside a functional group (truncated file?)",
                segment_number=where,
                expected="GE",
            )
        if self._isa is not None:
            raise X12ParseError(
                self.source,
                "input ends inside an interchange (truncated file?)",
                segment_number=where,
                expected="IEA",
            )
        if not self.transactions:
            raise X12ParseError(self.source, "no ST transaction set found", expected="ST")
