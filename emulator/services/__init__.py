"""Domain logic: authentication, authorization, the activity lifecycle, paging."""
