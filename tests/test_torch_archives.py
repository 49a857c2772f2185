"""Zip files handed where a checkpoint or a policy is expected (#53): their declared sizes are
checked against the file on disk before anything is read or inflated, and a zip that torch.save
did not write is refused in one line of ours, not torch's."""

from __future__ import annotations

import struct
import tracemalloc
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="checkpoints and policies need the train extra")

from test_cli_errors import assert_one_clear_error, farlight  # noqa: E402

from agents.farlight.policy import load_policy  # noqa: E402
from agents.farlight.policy.file import MAX_POLICY_BYTES  # noqa: E402
from farlight_env.untrusted.files import check_torch_archive  # noqa: E402
from training.checkpoints import (  # noqa: E402
    META_MEMBER,
    WEIGHTS_MEMBER,
    CheckpointError,
    checkpoint_steps,
    read_checkpoint,
)

META = b'{"format": "farlight-checkpoint", "version": 1}'
#: What a crafted member inflates to, or says it holds: far more than its file.
INFLATED = 64 << 20
#: The central directory's file header (zip APPNOTE 4.3.12) and its size fields' offsets.
CENTRAL_HEADER = b"PK\x01\x02"
COMPRESSED_AT, SIZE_AT, NAME_LENGTH_AT, NAME_AT = 20, 24, 28, 46


def declaring(data: bytes, name: str, size: int) -> bytes:
    """`data`, a zip, whose central directory says member `name` holds `size` bytes stored
    (the file itself unchanged): a directory nothing checks against the file's real size."""
    out = bytearray(data)
    at = out.find(CENTRAL_HEADER)
    while at >= 0:
        (length,) = struct.unpack_from("<H", out, at + NAME_LENGTH_AT)
        if out[at + NAME_AT : at + NAME_AT + length].decode() == name:
            struct.pack_into("<II", out, at + COMPRESSED_AT, size, size)
            return bytes(out)
        at = out.find(CENTRAL_HEADER, at + 1)
    raise AssertionError(f"no member {name} in the zip")


def deflated_checkpoint(path: Path) -> Path:
    """A checkpoint of a few kilobytes whose weights member inflates to INFLATED zero bytes."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(META_MEMBER, META)
        member = zipfile.ZipInfo(WEIGHTS_MEMBER)
        member.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(member, "w", force_zip64=True) as fh:
            for _ in range(INFLATED >> 20):
                fh.write(bytes(1 << 20))
    assert path.stat().st_size < INFLATED // 100
    return path


def peak_bytes(call, *args) -> tuple[int, BaseException | None]:
    """The most memory Python allocated while `call(*args)` ran, and what it raised."""
    tracemalloc.start()
    caught = None
    try:
        call(*args)
    except Exception as exc:  # noqa: BLE001 - the caller checks what was raised
        caught = exc
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak, caught


def test_a_deflated_checkpoint_member_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """#53: the member's declared size was under the 1 GiB bound, so 64 MiB were inflated into
    memory before the weights were found to be no torch file."""
    path = deflated_checkpoint(tmp_path / "checkpoint.zip")
    for read in (read_checkpoint, checkpoint_steps):
        peak, caught = peak_bytes(read, path)
        assert isinstance(caught, CheckpointError), caught
        assert f"{WEIGHTS_MEMBER} is compressed; checkpoints are written uncompressed" in str(
            caught
        )
        assert peak < 4 << 20, f"{peak:,} bytes allocated"


def test_a_checkpoint_member_declaring_more_than_the_file_is_refused(tmp_path: Path) -> None:
    """#53: a stored member's size comes from the zip's directory; it must fit in the file."""
    stored = tmp_path / "stored.zip"
    with zipfile.ZipFile(stored, "w") as archive:
        archive.writestr(META_MEMBER, META)
        archive.writestr(WEIGHTS_MEMBER, b"x" * 1000)
    path = tmp_path / "checkpoint.zip"
    path.write_bytes(declaring(stored.read_bytes(), WEIGHTS_MEMBER, INFLATED))
    size = path.stat().st_size
    for read in (read_checkpoint, checkpoint_steps):
        peak, caught = peak_bytes(read, path)
        assert isinstance(caught, CheckpointError), caught
        message = str(caught)
        assert f"declare {INFLATED + len(META):,} bytes, more than the {size:,} bytes" in message
        assert "\n" not in message and peak < 4 << 20


def test_a_torch_file_declaring_more_than_it_holds_is_refused_before_torch_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#53: torch.load allocates a storage at its declared size (here 64 MiB of a 1 kB file),
    under the 256 MB bound on a policy: the file's real size bounds it too."""
    raw = tmp_path / "raw.pt"
    torch.save({"format": "farlight-policy", "state_dict": {"w": torch.zeros(4)}}, raw)
    data = raw.read_bytes()
    name = next(n for n in zipfile.ZipFile(raw).namelist() if n.endswith("/data/0"))
    path = tmp_path / "liar.pt"
    path.write_bytes(declaring(data, name, INFLATED))

    def never(*_args, **_kwargs):
        raise AssertionError("torch.load was called")

    monkeypatch.setattr(torch, "load", never)
    for source in (path, path.read_bytes()):
        with pytest.raises(ValueError, match=r"bytes, more than the [0-9,]+ bytes of the file"):
            check_torch_archive(source, MAX_POLICY_BYTES)
    with pytest.raises(ValueError, match=r"liar\.pt: not a loadable policy file .*declare"):
        load_policy(path)
    check_torch_archive(data, MAX_POLICY_BYTES)  # the honest file passes


# ------------------------------------------------------------------ zips torch.save did not write
def foreign_zips(folder: Path) -> dict[str, Path]:
    """Zips given where a policy is expected, by what they lack -> path."""
    made = {}
    for name, members in {
        "no-version": {"archive/data.pkl": b"junk"},  # torch: Expected hasRecord("version")
        "no-folder": {"hello.txt": b"hi"},  # torch: file in archive is not in a subdirectory
        "no-data": {"archive/version": b"3\n"},  # torch: failed locating file data.pkl
    }.items():
        made[name] = folder / f"{name}.pt"
        with zipfile.ZipFile(made[name], "w") as archive:
            for member, data in members.items():
                archive.writestr(member, data)
    return made


@pytest.mark.parametrize("name", ["no-version", "no-folder", "no-data"])
def test_a_zip_without_torchs_records_is_refused_before_torch_reads_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#48: torch's own refusal read `RuntimeError: Expected hasRecord("version") to be true`."""
    path = foreign_zips(tmp_path)[name]

    def never(*_args, **_kwargs):
        raise AssertionError("torch.load was called")

    monkeypatch.setattr(torch, "load", never)
    with pytest.raises(ValueError, match="a zip, but not one torch.save wrote") as refused:
        load_policy(path)
    assert str(refused.value).startswith(f"{path}: not a loadable policy file (")
    checkpoint = tmp_path / "checkpoint.zip"
    with zipfile.ZipFile(checkpoint, "w") as archive:
        archive.writestr(META_MEMBER, META)
        archive.writestr(WEIGHTS_MEMBER, path.read_bytes())
    with pytest.raises(CheckpointError, match="weights.pt: .*a zip, but not one torch.save"):
        read_checkpoint(checkpoint)


@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "{path}", "--quick", "--no-progress"],
        ["play", "--opponents", "{path}", "--seed", "1"],
        ["tournament", "--agents", "random,{path}", "--games", "2", "--no-progress"],
    ],
)
def test_the_cli_refuses_a_zip_that_is_not_a_policy_in_a_line(
    argv: list[str], tmp_path: Path
) -> None:
    """#48: one or two lines naming the file, status 2, never torch's internals."""
    zips = foreign_zips(tmp_path)
    tensor, plain = tmp_path / "tensor.pt", tmp_path / "dict.pt"
    torch.save(torch.zeros(3), tensor)
    torch.save({"just": "a dict"}, plain)
    cases = {
        zips["no-version"]: "a zip, but not one torch.save wrote: no archive/version",
        zips["no-folder"]: "its records are not in a folder",
        tensor: "not a Farlight policy",
        plain: "not a Farlight policy",
    }
    for path, says in cases.items():
        proc = farlight(*(arg.format(path=path) for arg in argv))
        assert_one_clear_error(proc, path.name, says)
        assert "hasRecord" not in proc.stderr and "inline_container" not in proc.stderr
