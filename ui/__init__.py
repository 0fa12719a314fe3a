"""Streamlit helpers: the only place with st.cache_data wrappers and shared widgets."""
