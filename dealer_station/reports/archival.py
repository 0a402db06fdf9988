"""Turning a report reportlab wrote into an archival PDF (PDF/A-3b) that carries its evidence.

reportlab embeds the TrueType fonts the report uses (every font is embedded: the page
template sets none of the PDF core fonts), but it writes no XMP metadata, no output intent and
no associated files. pikepdf adds them:

- an sRGB output intent (the report's colours and charts are device RGB), with the ICC
  profile Pillow's colour management makes for sRGB;
- the journal records the report covers, as an associated file (``journal-records.jsonl``,
  one record per line exactly as the journal holds it, AFRelationship ``Source``), so the paper
  carries its own evidence and anyone with the key can re-hash it;
- XMP metadata matching the document information, with the PDF/A identification (part 3,
  conformance B).

A tagged (accessible, PDF/UA) structure is not made: reportlab cannot write one, and PDF/A's
"b" level does not need it.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pikepdf
from pikepdf import Name

from dealer_station.audit.hashing import canonical_json
from dealer_station.audit.journal import Record

#: The name of the attached journal records, in every report.
RECORDS_ATTACHMENT = "journal-records.jsonl"
SRGB = "sRGB IEC61966-2.1"


@dataclass(frozen=True, slots=True)
class Attachment:
    name: str
    data: bytes
    mime: str
    description: str
    relationship: str = "Source"    # how the file relates to the document (PDF/A-3)


@cache
def srgb_profile() -> bytes:
    """An sRGB ICC profile (made by Little CMS through Pillow: no file to ship or find)."""
    from PIL import ImageCms

    profile = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))
    data: bytes = profile.tobytes()
    return data


def record_line(rec: Record) -> dict[str, object]:
    """One journal record as the attachment carries it: every field the hash covers, each as
    it was hashed (``payload`` is the canonical JSON text, not an object), so that a verifier
    re-hashes the line as it is (docs/journal.md)."""
    return {"table_id": rec.table_id, "seq": rec.seq, "ts": rec.ts, "actor": rec.actor,
            "kind": rec.kind, "round_no": rec.round_no, "payload": canonical_json(rec.payload),
            "prev_hash": rec.prev_hash, "hash": rec.hash}


def records_attachment(records: Iterable[Record], table: str,
                       name: str = RECORDS_ATTACHMENT,
                       prove: Callable[[int], dict[str, object] | None] | None = None
                       ) -> Attachment:
    """The records, a JSON object a line; with ``prove``, each also carries its inclusion
    proof (``proof``: the checkpoint's size, the leaf's index and the path; null for a record
    the checkpoint does not cover)."""
    out = io.BytesIO()
    count = 0
    for rec in records:
        line = record_line(rec)
        if prove is not None:
            line["proof"] = prove(rec.seq)
        out.write(json.dumps(line, ensure_ascii=False, sort_keys=True).encode("utf-8"))
        out.write(b"\n")
        count += 1
    return Attachment(name, out.getvalue(), "application/x-ndjson",
                      f"The {count:,} journal records of table {table} this report covers, "
                      f"one JSON object per line, as the journal holds them")


def checkpoint_attachment(note: str, table: str, name: str) -> Attachment:
    """The signed (and cosigned) checkpoint the attached records are proven against."""
    return Attachment(name, note.encode("utf-8"), "text/plain",
                      f"The checkpoint of table {table} the attached records are proven "
                      f"against: a signed note (C2SP tlog-checkpoint), signed by the station "
                      f"and cosigned by the regulator's witness where one was")


def _pdf_date(when: datetime) -> str:
    return "D:" + when.astimezone(UTC).strftime("%Y%m%d%H%M%SZ")


def make_archival(path: Path, attachments: Sequence[Attachment], *,
                  created: datetime | None = None) -> None:
    """Rewrite the PDF at ``path`` in place as PDF/A-3b with ``attachments``."""
    when = _pdf_date(created or datetime.now(UTC))
    with pikepdf.open(path, allow_overwriting_input=True) as pdf:
        icc = pikepdf.Stream(pdf, srgb_profile())
        icc[Name.N] = 3
        pdf.Root[Name.OutputIntents] = pikepdf.Array([pdf.make_indirect(pikepdf.Dictionary(
            Type=Name.OutputIntent, S=Name.GTS_PDFA1, OutputConditionIdentifier=SRGB,
            Info=SRGB, RegistryName="http://www.color.org", DestOutputProfile=icc))])
        associated = []
        for a in attachments:
            spec = pikepdf.AttachedFileSpec(pdf, a.data, description=a.description,
                                            filename=a.name, mime_type=a.mime,
                                            creation_date=when, mod_date=when)
            spec.obj[Name.AFRelationship] = Name("/" + a.relationship)
            pdf.attachments[a.name] = spec
            associated.append(spec.obj)
        if associated:
            pdf.Root[Name.AF] = pikepdf.Array(associated)
        # The Info entries PDF/A wants mirrored in XMP (Trapped has no use here: dropped).
        if Name.Trapped in pdf.docinfo:
            del pdf.docinfo[Name.Trapped]
        with pdf.open_metadata(set_pikepdf_as_editor=False) as meta:
            meta.load_from_docinfo(pdf.docinfo)
            meta["pdfaid:part"] = "3"
            meta["pdfaid:conformance"] = "B"
        pdf.save(path, min_version="1.7", fix_metadata_version=True)
