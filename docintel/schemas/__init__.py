"""Records that cross brick boundaries: Arrow schemas for the store's tables, pydantic models
for everything else. One place, so a column or field has one name everywhere."""
