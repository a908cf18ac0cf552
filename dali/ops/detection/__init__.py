"""Detection: bounding boxes (flips, pastes, rotations, random crops) and anchor encoding."""
