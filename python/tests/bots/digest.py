"""A short digest of everything a View holds but its outcome."""
import hashlib
import json


def digest(view) -> str:
    data = {
        "color": view.color,
        "ply": view.ply,
        "pieces": [p.to_dict() for p in view.pieces],
        "captured": view.captured,
        "history": [p.to_dict() for p in view.history],
        "legal_moves": [str(m) for m in view.legal_moves],
    }
    return hashlib.sha1(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
