"""Untrusted .npz files: rhgd.builtin(name, data=path or dict) turns a
hostile or broken file into rhgd.InvalidArgument naming the file and the
array, never a crash, and RHGD_NPZ_MAX_BYTES, set in os.environ at any
time, bounds one array."""

import io
import struct
import zipfile

import numpy as np
import pytest

import rhgd


def npy(descr, shape, data):
    """An .npy file (format 1.0) with the given header and data bytes."""
    d = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, repr(tuple(shape)))
    d += " " * (63 - (10 + len(d)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() + data


def zipped(members, deflate=False):
    """A zip archive of {name: bytes}."""
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return b.getvalue()


def declare(archive, size):
    """archive with its first member's uncompressed size declared as size
    in its local header and the zip directory."""
    b = bytearray(archive)
    local, central = b.index(b"PK\x03\x04"), b.index(b"PK\x01\x02")
    struct.pack_into("<I", b, local + 22, size)
    struct.pack_into("<I", b, central + 24, size)
    return bytes(b)


RNG = np.random.default_rng(5)
X = RNG.standard_normal((16, 8))
Y = RNG.standard_normal((16, 2))
XNPY, YNPY = npy("<f8", X.shape, X.tobytes()), npy("<f8", Y.shape, Y.tobytes())


def hostile():
    """(name, file bytes, the array the error must name, a message part)."""
    bomb = declare(zipped({"X.npy": XNPY + bytes(4 << 20), "Y.npy": YNPY}, deflate=True), len(XNPY))
    obj = io.BytesIO()
    np.savez(obj, X=np.full((16, 1), {"a": 1}, dtype=object), Y=Y)  # only the dtype is wrong
    return [
        ("huge", zipped({"X.npy": npy("<f8", (100000, 100000), bytes(128)), "Y.npy": YNPY}), "X", "header declares"),
        ("bomb", bomb, "X", "expands beyond"),
        ("object", obj.getvalue(), "X", "|O"),
        ("missing", zipped({"X.npy": XNPY}), "Y", "no array"),
        ("shape", zipped({"X.npy": XNPY, "Y.npy": npy("<f8", (9, 2), bytes(9 * 2 * 8))}), "Y", "shape"),
        ("short", zipped({"X.npy": npy("<f8", (32, 8), X.tobytes()), "Y.npy": YNPY}), "X", "header declares"),
    ]


@pytest.mark.parametrize("name,data,array,part", hostile(), ids=[h[0] for h in hostile()])
def test_hostile_file_is_invalid_argument(tmp_path, name, data, array, part):
    path = tmp_path / "data.npz"  # a name no message part matches
    path.write_bytes(data)
    with pytest.raises(rhgd.InvalidArgument) as e:
        rhgd.builtin("synthetic", data=str(path))
    msg = str(e.value)
    assert str(path) in msg and array in msg and part in msg.split(str(path), 1)[1], msg


def test_dict_data_checked_before_reading():
    """A dict goes through a temporary .npz and the same checks."""
    with pytest.raises(rhgd.InvalidArgument) as e:
        rhgd.builtin("synthetic", data={"X": X, "Y": np.ones((9, 2))})
    assert "Y has shape [9 2]" in str(e.value), str(e.value)
    with pytest.raises(rhgd.InvalidArgument, match='no array "Y"'):
        rhgd.builtin("synthetic", data={"X": X})


def test_limit_from_environment(tmp_path, monkeypatch):
    """RHGD_NPZ_MAX_BYTES set in os.environ after the library loaded
    counts at the next builtin (the C ABI reads the environment with C's
    getenv at each call)."""
    path = tmp_path / "big.npz"
    rng = np.random.default_rng(6)
    np.savez_compressed(path, X=rng.standard_normal((4096, 64)), Y=rng.standard_normal((4096, 2)))
    monkeypatch.setenv("RHGD_NPZ_MAX_BYTES", "1MiB")
    with pytest.raises(rhgd.InvalidArgument) as e:
        rhgd.builtin("synthetic", data=str(path))
    msg = str(e.value)
    assert str(path) in msg and "X" in msg and "over the limit of 1048576" in msg and "RHGD_NPZ_MAX_BYTES" in msg, msg
    monkeypatch.setenv("RHGD_NPZ_MAX_BYTES", "a lot")
    with pytest.raises(rhgd.InvalidArgument, match='RHGD_NPZ_MAX_BYTES="a lot"'):
        rhgd.builtin("synthetic", data=str(path))
    monkeypatch.delenv("RHGD_NPZ_MAX_BYTES")
    p = rhgd.builtin("synthetic", data=str(path))
    assert p.mx.shape == (64, 2)
