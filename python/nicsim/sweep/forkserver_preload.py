"""Imported by the sweep pool's fork server only (its preload list): the fork server dies with
the sweep, and with it, by their own parent-death signal, every worker it forked."""
from .parentdeath import die_with_parent

die_with_parent()
