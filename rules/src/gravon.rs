//! Gravon (StraDoS2) XML.
