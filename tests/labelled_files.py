"""Test data: `n` one-byte files listed in a file_list with their index as the label, so the
labels of a reader's batches say which samples it returned."""


def write(root, n):
    """Write the files and the list into folder `root`; returns (root, list path) as str."""
    lines = []
    for i in range(n):
        (root / f"{i:02d}.bin").write_bytes(bytes([i]))
        lines.append(f"{i:02d}.bin {i}")
    (root / "list.txt").write_text("\n".join(lines) + "\n")
    return str(root), str(root / "list.txt")
